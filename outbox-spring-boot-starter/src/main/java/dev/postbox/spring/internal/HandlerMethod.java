package dev.postbox.spring.internal;

import dev.postbox.spring.OutboxHandler;
import java.lang.reflect.Method;

/**
 * An {@link OutboxHandler} method found on a bean.
 *
 * @param beanName the bean holding the method
 * @param beanType the bean's user class (not a proxy class)
 * @param method the annotated method
 * @param annotation its annotation
 */
public record HandlerMethod(String beanName, Class<?> beanType, Method method, OutboxHandler annotation) {

    public String kind() {
        return annotation.value();
    }

    /** For messages: {@code bean 'orders' (com.example.OrderHandlers.reserve(Reservation))}. */
    public String describe() {
        return "bean '" + beanName + "' (" + MethodNames.describe(method) + ")";
    }
}
