package dev.postbox.spring.test;

import dev.postbox.JsonCodec;
import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * A job waiting in {@code outbox_job}, as a test sees it.
 *
 * @param state pending, retry or running
 */
public record EnqueuedJob(
        long id,
        String queue,
        String kind,
        String payloadJson,
        @Nullable String idempotencyKey,
        @Nullable String orderingKey,
        int priority,
        String state,
        int attempts,
        Instant runAt,
        JsonCodec codec) {

    /** The payload read into the given type. */
    public <T> T payload(Class<T> type) {
        return codec.fromJson(payloadJson, type);
    }

    @Override
    public String toString() {
        return "EnqueuedJob[id=" + id + ", queue=" + queue + ", kind=" + kind + ", state=" + state + ", payload="
                + payloadJson + "]";
    }
}
