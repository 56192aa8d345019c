package dev.postbox.spring.internal;

import dev.postbox.spring.OutboxHandler;
import java.lang.reflect.Method;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.aop.scope.ScopedProxyUtils;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.util.ClassUtils;

/**
 * Finds {@link OutboxHandler} methods on the beans of a factory from their <em>types</em>, without
 * creating the beans: the engine must know every kind when it is built, while handler beans may
 * themselves depend on the engine's {@code Outbox}. The handler beans are fetched when the first job
 * runs. {@link AnnotatedBeanVerifier} checks after startup that no handler was missed.
 */
public final class HandlerMethodScanner {

    private HandlerMethodScanner() {}

    /** The handler methods by kind; fails when two methods handle one kind. */
    public static Map<String, HandlerMethod> scan(ConfigurableListableBeanFactory beanFactory) {
        Map<String, HandlerMethod> byKind = new LinkedHashMap<>();
        for (String beanName : beanFactory.getBeanDefinitionNames()) {
            if (ScopedProxyUtils.isScopedTarget(beanName)) {
                continue;
            }
            BeanDefinition definition = beanFactory.getMergedBeanDefinition(beanName);
            if (definition.isAbstract()) {
                continue;
            }
            Class<?> type = beanFactory.getType(beanName, false);
            if (type == null) {
                continue;
            }
            for (HandlerMethod handler : handlerMethods(beanName, type).values()) {
                add(byKind, handler);
            }
        }
        return byKind;
    }

    /** The handler methods declared on one bean type, by kind. */
    static Map<String, HandlerMethod> handlerMethods(String beanName, Class<?> type) {
        Class<?> userType = ClassUtils.getUserClass(type);
        Map<String, HandlerMethod> found = new LinkedHashMap<>();
        if (!AnnotationUtils.isCandidateClass(userType, OutboxHandler.class)) {
            return found;
        }
        Map<Method, OutboxHandler> methods =
                MethodIntrospector.selectMethods(userType, (MethodIntrospector.MetadataLookup<OutboxHandler>)
                        method -> AnnotatedElementUtils.findMergedAnnotation(method, OutboxHandler.class));
        methods.forEach((method, annotation) -> add(found, new HandlerMethod(beanName, userType, method, annotation)));
        return found;
    }

    private static void add(Map<String, HandlerMethod> byKind, HandlerMethod handler) {
        if (handler.kind().isBlank()) {
            throw new IllegalStateException("@OutboxHandler on " + handler.describe()
                    + " has a blank kind: name the job kind it handles, e.g. @OutboxHandler(\"send-mail\")");
        }
        HandlerMethod existing = byKind.putIfAbsent(handler.kind(), handler);
        if (existing != null) {
            throw new IllegalStateException("Two @OutboxHandler methods handle job kind '" + handler.kind() + "': "
                    + existing.describe() + " and " + handler.describe()
                    + ". Each kind has exactly one handler: remove one, or give it another kind.");
        }
    }
}
