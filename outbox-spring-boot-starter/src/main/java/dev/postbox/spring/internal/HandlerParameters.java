package dev.postbox.spring.internal;

import dev.postbox.Job;
import java.lang.reflect.Method;

/**
 * Where an {@link dev.postbox.spring.OutboxHandler} method wants the payload and the {@link Job}:
 * at most one of each, in any order; nothing else.
 */
record HandlerParameters(int count, int payloadIndex, Class<?> payloadType, int jobIndex) {

    static HandlerParameters of(HandlerMethod handler) {
        Method method = handler.method();
        Class<?>[] types = method.getParameterTypes();
        int payloadIndex = -1;
        int jobIndex = -1;
        for (int i = 0; i < types.length; i++) {
            if (types[i] == Job.class) {
                if (jobIndex >= 0) {
                    throw invalid(handler, "it takes the Job twice");
                }
                jobIndex = i;
            } else {
                if (payloadIndex >= 0) {
                    throw invalid(handler, "it takes two payload parameters");
                }
                payloadIndex = i;
            }
        }
        return new HandlerParameters(
                types.length, payloadIndex, payloadIndex >= 0 ? types[payloadIndex] : Void.class, jobIndex);
    }

    private static IllegalStateException invalid(HandlerMethod handler, String problem) {
        return new IllegalStateException(
                "@OutboxHandler(\"" + handler.kind() + "\") on " + handler.describe()
                        + " cannot be called: " + problem
                        + ". Declare at most one payload parameter (read from JSON) and at most one dev.postbox.Job parameter.");
    }
}
