package dev.postbox.spring.internal;

import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.stream.Collectors;

/** Short, readable method names for error messages. */
final class MethodNames {

    private MethodNames() {}

    /** {@code com.example.Orders.place(NewOrder, String)}. */
    static String describe(Method method) {
        return method.getDeclaringClass().getName() + "." + method.getName() + "("
                + Arrays.stream(method.getParameterTypes())
                        .map(Class::getSimpleName)
                        .collect(Collectors.joining(", "))
                + ")";
    }
}
