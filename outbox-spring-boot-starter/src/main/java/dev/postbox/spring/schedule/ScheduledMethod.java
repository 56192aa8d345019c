package dev.postbox.spring.schedule;

import dev.postbox.spring.OutboxHandler;
import dev.postbox.spring.PostboxSchedule;
import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * One {@link PostboxSchedule} annotation found on a bean method.
 *
 * @param beanName the bean holding the method
 * @param beanType the bean's user class
 * @param method the annotated method
 * @param schedule the schedule annotation
 * @param handler the method's {@link OutboxHandler} annotation, {@code null} on a plain method
 */
record ScheduledMethod(
        String beanName,
        Class<?> beanType,
        Method method,
        PostboxSchedule schedule,
        @Nullable OutboxHandler handler) {

    /** For messages: {@code @PostboxSchedule(name = "x") on bean 'reports' (com.example.Reports.run())}. */
    String describe() {
        return "@PostboxSchedule(name = \"" + schedule.name() + "\") on bean '" + beanName + "' ("
                + method.getDeclaringClass().getName() + "." + method.getName() + "("
                + Arrays.stream(method.getParameterTypes())
                        .map(Class::getSimpleName)
                        .collect(Collectors.joining(", "))
                + "))";
    }
}
