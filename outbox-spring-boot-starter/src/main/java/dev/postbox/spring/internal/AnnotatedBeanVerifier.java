package dev.postbox.spring.internal;

import dev.postbox.Postbox;
import java.lang.reflect.Method;
import java.util.LinkedHashSet;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.FactoryBean;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfigurationPackages;
import org.springframework.core.MethodIntrospector;
import org.springframework.util.ReflectionUtils;

/**
 * After all singletons exist, checks the annotations on them so that mistakes fail the startup
 * rather than the first call: every {@code @OutboxHandler} method was registered with the engine
 * (a bean whose type was not visible from its definition would otherwise be missed), every
 * {@code @Enqueue} annotation is valid (SpEL syntax, delay, a payload for void methods), and, when a
 * broker relay is configured, every {@code @Enqueue} and every {@code @OutboxEvent} type in the
 * application's packages ({@code @SpringBootApplication}'s) that writes a job of the relay's kind
 * names one of its destinations.
 */
public final class AnnotatedBeanVerifier implements SmartInitializingSingleton {

    private static final Logger log = LoggerFactory.getLogger(AnnotatedBeanVerifier.class);

    private final ConfigurableListableBeanFactory beanFactory;
    private final ObjectProvider<HandlerMethodRegistry> handlers;
    private final ObjectProvider<EnqueueMethodInterceptor> enqueueInterceptor;
    private final ObjectProvider<Postbox> postbox;

    public AnnotatedBeanVerifier(
            ConfigurableListableBeanFactory beanFactory,
            ObjectProvider<HandlerMethodRegistry> handlers,
            ObjectProvider<EnqueueMethodInterceptor> enqueueInterceptor,
            ObjectProvider<Postbox> postbox) {
        this.beanFactory = beanFactory;
        this.handlers = handlers;
        this.enqueueInterceptor = enqueueInterceptor;
        this.postbox = postbox;
    }

    @Override
    public void afterSingletonsInstantiated() {
        HandlerMethodRegistry registry = handlers.getIfAvailable();
        EnqueueMethodInterceptor interceptor = enqueueInterceptor.getIfAvailable();
        Postbox engine = postbox.getIfUnique();
        if (registry != null && engine != null) {
            verifyEngineHasHandlers(registry, engine);
        }
        Set<String> names = new LinkedHashSet<>(Set.of(beanFactory.getBeanDefinitionNames()));
        names.addAll(Set.of(beanFactory.getSingletonNames()));
        for (String name : names) {
            if (!beanFactory.containsSingleton(name)) {
                continue;
            }
            Object bean = beanFactory.getSingleton(name);
            if (bean == null || bean instanceof FactoryBean<?>) {
                continue;
            }
            Class<?> type = AopUtils.getTargetClass(bean);
            if (registry != null) {
                verifyHandlers(registry, name, type);
            }
            if (interceptor != null) {
                verifyEnqueueMethods(interceptor, name, bean, type);
            }
        }
        verifyOutboxEventDestinations();
    }

    /**
     * Event classes are no beans: with a broker relay configured, the {@code @OutboxEvent} types of
     * the application's packages are found by scanning (class files read, not loaded) and their
     * destinations checked. Without a relay nothing is scanned.
     */
    private void verifyOutboxEventDestinations() {
        BrokerDestinationCheck destinations = new BrokerDestinationCheck(beanFactory);
        if (!destinations.anyRelay() || !AutoConfigurationPackages.has(beanFactory)) {
            return;
        }
        for (OutboxEventTypes.Found event :
                OutboxEventTypes.in(AutoConfigurationPackages.get(beanFactory), beanFactory.getBeanClassLoader())) {
            destinations.check(
                    OutboxEventBridge.where(event.kind(), event.typeName()), event.kind(), event.destination());
        }
    }

    /**
     * A {@code Postbox} bean the application built itself, without the starter's {@code
     * Postbox.Builder} bean, lacks the {@code @OutboxHandler} methods: its jobs would wait forever.
     */
    private void verifyEngineHasHandlers(HandlerMethodRegistry registry, Postbox engine) {
        for (HandlerMethod handler : registry.byKind().values()) {
            if (!engine.handlerKinds().contains(handler.kind())) {
                String[] names = beanFactory.getBeanNamesForType(Postbox.class);
                throw new IllegalStateException("@OutboxHandler(\"" + handler.kind() + "\") on " + handler.describe()
                        + " is not a handler of the Postbox bean " + String.join(", ", names) + ", which the"
                        + " application built itself. Build it from the Postbox.Builder bean the starter provides,"
                        + " which adds @OutboxHandler methods, HandlerRegistration beans and PostboxCustomizers:"
                        + " @Bean Postbox postbox(Postbox.Builder builder) { return builder.build(); }");
            }
        }
    }

    private static void verifyHandlers(HandlerMethodRegistry registry, String name, Class<?> type) {
        for (HandlerMethod found :
                HandlerMethodScanner.handlerMethods(name, type).values()) {
            HandlerMethod registered = registry.forKind(found.kind()).orElse(null);
            if (registered == null) {
                throw new IllegalStateException("@OutboxHandler(\"" + found.kind() + "\") on " + found.describe()
                        + " was not registered: the bean's class could not be told from its definition when the"
                        + " Postbox engine was built. Declare the @Bean method's return type as "
                        + type.getName() + ", or register the handler with a HandlerRegistration bean.");
            }
            if (!registered.method().equals(found.method())
                    && !registered.beanName().equals(name)) {
                throw new IllegalStateException("Two @OutboxHandler methods handle job kind '" + found.kind() + "': "
                        + registered.describe() + " and " + found.describe()
                        + ". Each kind has exactly one handler: remove one, or give it another kind.");
            }
        }
    }

    private static void verifyEnqueueMethods(
            EnqueueMethodInterceptor interceptor, String name, Object bean, Class<?> type) {
        Set<Method> annotated =
                MethodIntrospector.selectMethods(type, (ReflectionUtils.MethodFilter) EnqueueMethod::isAnnotated);
        if (annotated.isEmpty()) {
            return;
        }
        for (Method method : annotated) {
            interceptor.describe(method, type);
        }
        if (!AopUtils.isAopProxy(bean)) {
            log.warn(
                    "Bean '{}' ({}) has @Enqueue methods but is not a proxy, so they write no jobs. Is the class final,"
                            + " or was it created before the auto-proxy creator?",
                    name,
                    type.getName());
        }
    }
}
