package dev.postbox.http.signing;

import dev.postbox.Require;
import dev.postbox.http.internal.HmacSha256;
import dev.postbox.http.signing.WebhookVerificationException.Reason;
import java.security.MessageDigest;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Verifies incoming Standard Webhooks requests (the receiving side): the {@code webhook-id}, {@code
 * webhook-timestamp} and {@code webhook-signature} headers against one or more secrets.
 *
 * <p>Several secrets are accepted so that a receiver can rotate: during the rotation it holds both
 * the old and the new secret, and any matching {@code v1} signature passes. Signatures are compared
 * in constant time. The timestamp must lie within {@link Builder#tolerance(Duration) tolerance}
 * (default {@link #DEFAULT_TOLERANCE}) of the injected clock, which bounds replays.
 *
 * <p>Immutable and thread-safe. Build with {@link #builder()}.
 */
public final class WebhookVerifier {

    /** Header carrying the stable message id. */
    public static final String ID_HEADER = "webhook-id";

    /** Header carrying the attempt's Unix timestamp in seconds. */
    public static final String TIMESTAMP_HEADER = "webhook-timestamp";

    /** Header carrying the space-separated signatures. */
    public static final String SIGNATURE_HEADER = "webhook-signature";

    /** The default timestamp tolerance, five minutes, as the specification recommends. */
    public static final Duration DEFAULT_TOLERANCE = Duration.ofMinutes(5);

    private static final String SIGNATURE_PREFIX = WebhookSigner.VERSION + ",";

    private final List<WebhookSecret> secrets;
    private final Duration tolerance;
    private final Clock clock;

    private WebhookVerifier(Builder builder) {
        this.secrets = List.copyOf(builder.secrets);
        this.tolerance = builder.tolerance;
        this.clock = builder.clock;
    }

    /** A builder; at least one secret is required. */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Verifies a webhook given a header lookup (for example {@code request::getHeader} of a servlet
     * request, which is case-insensitive).
     *
     * @param header returns the header's value, or null when absent
     * @param body the raw request body bytes, exactly as received (do not re-serialize JSON)
     * @throws WebhookVerificationException with the reason the webhook is rejected
     */
    public VerifiedWebhook verify(Function<String, @Nullable String> header, byte[] body) {
        Require.notNull(header, "header");
        return verify(header.apply(ID_HEADER), header.apply(TIMESTAMP_HEADER), header.apply(SIGNATURE_HEADER), body);
    }

    /**
     * Verifies a webhook given its headers as a map; header names are matched case-insensitively.
     *
     * @throws WebhookVerificationException with the reason the webhook is rejected
     */
    public VerifiedWebhook verify(Map<String, String> headers, byte[] body) {
        Require.notNull(headers, "headers");
        return verify(name -> headerIgnoringCase(headers, name), body);
    }

    /**
     * Verifies a webhook given the three header values.
     *
     * @throws WebhookVerificationException with the reason the webhook is rejected
     */
    public VerifiedWebhook verify(
            @Nullable String messageId, @Nullable String timestamp, @Nullable String signatures, byte[] body) {
        Require.notNull(body, "body");
        String id = required(ID_HEADER, messageId);
        String timestampValue = required(TIMESTAMP_HEADER, timestamp);
        String signatureValue = required(SIGNATURE_HEADER, signatures);
        Instant sentAt = checkTimestamp(timestampValue);
        byte[] content = HmacSha256.concat(id, sentAt.getEpochSecond(), body);
        List<byte[]> candidates = decodeV1Signatures(signatureValue);
        boolean matched = false;
        for (WebhookSecret secret : secrets) {
            byte[] expected = HmacSha256.mac(secret.key(), content);
            for (byte[] candidate : candidates) {
                // Non-short-circuiting: the work done does not depend on which candidate matches.
                matched |= MessageDigest.isEqual(expected, candidate);
            }
        }
        if (!matched) {
            // Neither the number of secrets nor anything about them: the message may reach the sender.
            throw new WebhookVerificationException(
                    Reason.NO_MATCHING_SIGNATURE,
                    "no " + WebhookSigner.VERSION + " signature in " + SIGNATURE_HEADER
                            + " matches a configured secret");
        }
        return new VerifiedWebhook(id, sentAt);
    }

    private static String required(String name, @Nullable String value) {
        if (value == null || value.isBlank()) {
            throw new WebhookVerificationException(Reason.MISSING_HEADER, "missing header " + name);
        }
        return value.strip();
    }

    private Instant checkTimestamp(String value) {
        long seconds;
        try {
            if (!value.chars().allMatch(c -> c >= '0' && c <= '9')) {
                throw new NumberFormatException();
            }
            seconds = Long.parseLong(value);
        } catch (NumberFormatException e) {
            throw new WebhookVerificationException(
                    Reason.INVALID_TIMESTAMP,
                    TIMESTAMP_HEADER + " must be Unix time in whole seconds (at most 18 digits)");
        }
        Instant now = clock.instant();
        // Compared as numbers first: a 17- to 19-digit value is a valid long but beyond Instant's range,
        // and Instant.ofEpochSecond would throw DateTimeException (an HTTP 500 for anyone unsigned).
        // The messages name neither the clock nor the received instant: they may reach the sender.
        long latest = Math.addExact(now.getEpochSecond(), tolerance.getSeconds() + 1);
        if (seconds > latest) {
            throw tooNew();
        }
        Instant sentAt = Instant.ofEpochSecond(seconds);
        if (sentAt.isBefore(now.minus(tolerance))) {
            throw new WebhookVerificationException(
                    Reason.TIMESTAMP_TOO_OLD,
                    TIMESTAMP_HEADER + " is older than the tolerance of " + tolerance
                            + " (a replay, or a clock far behind)");
        }
        if (sentAt.isAfter(now.plus(tolerance))) {
            throw tooNew();
        }
        return sentAt;
    }

    private WebhookVerificationException tooNew() {
        return new WebhookVerificationException(
                Reason.TIMESTAMP_TOO_NEW,
                TIMESTAMP_HEADER + " is further in the future than the tolerance of " + tolerance
                        + " (a clock far ahead)");
    }

    private static List<byte[]> decodeV1Signatures(String header) {
        List<byte[]> decoded = new ArrayList<>();
        for (String entry : header.split("\\s+")) {
            if (!entry.startsWith(SIGNATURE_PREFIX)) {
                continue; // other versions (e.g. v1a) are not ours to check
            }
            try {
                decoded.add(Base64.getDecoder().decode(entry.substring(SIGNATURE_PREFIX.length())));
            } catch (IllegalArgumentException ignored) {
                // a malformed entry simply does not match
            }
        }
        return decoded;
    }

    private static @Nullable String headerIgnoringCase(Map<String, String> headers, String name) {
        String exact = headers.get(name);
        if (exact != null) {
            return exact;
        }
        for (Map.Entry<String, String> entry : headers.entrySet()) {
            if (entry.getKey() != null
                    && entry.getKey().toLowerCase(Locale.ROOT).equals(name)) {
                return entry.getValue();
            }
        }
        return null;
    }

    /** How far a timestamp may be from the clock, either way. */
    public Duration tolerance() {
        return tolerance;
    }

    @Override
    public String toString() {
        return "WebhookVerifier[" + secrets.size() + " secret(s), tolerance=" + tolerance + "]";
    }

    /** Builder of {@link WebhookVerifier}; each setter validates its argument. */
    public static final class Builder {
        private final List<WebhookSecret> secrets = new ArrayList<>();
        private Duration tolerance = DEFAULT_TOLERANCE;
        private Clock clock = Clock.systemUTC();

        private Builder() {}

        /** Adds a secret that is accepted; add both the old and the new one during a rotation. */
        public Builder secret(WebhookSecret secret) {
            secrets.add(Require.notNull(secret, "secret"));
            return this;
        }

        /** Adds secrets that are accepted. */
        public Builder secrets(List<WebhookSecret> secrets) {
            Require.notNull(secrets, "secrets").forEach(this::secret);
            return this;
        }

        /** How far the timestamp may be from the clock, either way; positive. Default five minutes. */
        public Builder tolerance(Duration tolerance) {
            Require.notNull(tolerance, "tolerance");
            if (tolerance.isNegative() || tolerance.isZero()) {
                throw new IllegalArgumentException("tolerance must be positive, got " + tolerance);
            }
            this.tolerance = tolerance;
            return this;
        }

        /** The clock that timestamps are compared to. Default: the system UTC clock. */
        public Builder clock(Clock clock) {
            this.clock = Require.notNull(clock, "clock");
            return this;
        }

        /**
         * Builds the verifier.
         *
         * @throws IllegalStateException if no secret was added
         */
        public WebhookVerifier build() {
            if (secrets.isEmpty()) {
                throw new IllegalStateException("secrets may not be empty: add at least one secret");
            }
            return new WebhookVerifier(this);
        }
    }
}
