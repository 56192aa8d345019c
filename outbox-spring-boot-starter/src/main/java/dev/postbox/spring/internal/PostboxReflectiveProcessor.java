package dev.postbox.spring.internal;

import dev.postbox.Job;
import java.lang.reflect.AnnotatedElement;
import java.lang.reflect.Method;
import java.lang.reflect.Type;
import org.springframework.aot.hint.BindingReflectionHintsRegistrar;
import org.springframework.aot.hint.ExecutableMode;
import org.springframework.aot.hint.ReflectionHints;
import org.springframework.aot.hint.annotation.ReflectiveProcessor;

/**
 * Native-image hints for what Postbox reflects on in an application's beans, applied by Spring AOT
 * to every bean member annotated with {@code @OutboxHandler}, {@code @PostboxSchedule} or {@code
 * @Enqueue}, and to {@code @OutboxEvent} classes it scans ({@code @ReflectiveScan}): the method is
 * invoked reflectively, and its payload types (parameters other than {@link Job}, the return value)
 * are read and written by Jackson and navigated by SpEL, so they get binding hints.
 */
public final class PostboxReflectiveProcessor implements ReflectiveProcessor {

    private final BindingReflectionHintsRegistrar bindings = new BindingReflectionHintsRegistrar();

    @Override
    public void registerReflectionHints(ReflectionHints hints, AnnotatedElement element) {
        if (element instanceof Method method) {
            hints.registerMethod(method, ExecutableMode.INVOKE);
            for (Type parameter : method.getGenericParameterTypes()) {
                if (parameter != Job.class) {
                    bindings.registerReflectionHints(hints, parameter);
                }
            }
            if (method.getReturnType() != void.class) {
                bindings.registerReflectionHints(hints, method.getGenericReturnType());
            }
        } else if (element instanceof Class<?> type) {
            bindings.registerReflectionHints(hints, type);
        }
    }
}
