package dev.postbox.http.inbox;

import dev.postbox.http.webhook.Webhooks;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * A verified webhook as the receiver's handler sees it.
 *
 * @param messageId the {@code webhook-id}: the sender's idempotency key, the same on every attempt
 * @param timestamp the attempt's {@code webhook-timestamp}
 * @param body the raw body bytes, exactly as signed
 * @param header the request's header lookup
 */
public record InboxMessage(
        String messageId, Instant timestamp, byte[] body, Function<String, @Nullable String> header) {

    /** The body decoded as UTF-8 (a JSON document). */
    public String bodyText() {
        return new String(body, StandardCharsets.UTF_8);
    }

    /** The event type of a published event ({@code webhook-event-type}), or null. */
    public @Nullable String eventType() {
        return header.apply(Webhooks.EVENT_TYPE_HEADER);
    }
}
