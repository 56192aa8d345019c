package dev.postbox.spring.schedule;

import dev.postbox.spring.OutboxHandler;
import dev.postbox.spring.PostboxSchedule;
import dev.postbox.spring.PostboxSchedules;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.springframework.aop.scope.ScopedProxyUtils;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.util.ClassUtils;

/**
 * Finds {@link PostboxSchedule} methods from the bean <em>types</em>, without creating the beans (the
 * engine needs the handler kinds of plain scheduled methods before it is built), like the
 * {@code @OutboxHandler} scanner.
 */
final class ScheduledMethodScanner {

    private ScheduledMethodScanner() {}

    static List<ScheduledMethod> scan(ConfigurableListableBeanFactory beanFactory) {
        List<ScheduledMethod> found = new ArrayList<>();
        for (String beanName : beanFactory.getBeanDefinitionNames()) {
            if (ScopedProxyUtils.isScopedTarget(beanName)) {
                continue;
            }
            BeanDefinition definition = beanFactory.getMergedBeanDefinition(beanName);
            if (definition.isAbstract()) {
                continue;
            }
            Class<?> type = beanFactory.getType(beanName, false);
            if (type != null) {
                found.addAll(scheduledMethods(beanName, type));
            }
        }
        return found;
    }

    static List<ScheduledMethod> scheduledMethods(String beanName, Class<?> type) {
        Class<?> userType = ClassUtils.getUserClass(type);
        List<ScheduledMethod> found = new ArrayList<>();
        if (!AnnotationUtils.isCandidateClass(userType, List.of(PostboxSchedule.class, PostboxSchedules.class))) {
            return found;
        }
        Map<Method, Set<PostboxSchedule>> methods = MethodIntrospector.selectMethods(
                userType, (MethodIntrospector.MetadataLookup<Set<PostboxSchedule>>) method -> {
                    Set<PostboxSchedule> schedules = AnnotatedElementUtils.findMergedRepeatableAnnotations(
                            method, PostboxSchedule.class, PostboxSchedules.class);
                    return schedules.isEmpty() ? null : schedules;
                });
        methods.forEach((method, schedules) -> {
            OutboxHandler handler = AnnotatedElementUtils.findMergedAnnotation(method, OutboxHandler.class);
            for (PostboxSchedule schedule : schedules) {
                found.add(new ScheduledMethod(beanName, userType, method, schedule, handler));
            }
        });
        return found;
    }
}
