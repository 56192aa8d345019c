package dev.postbox.http.signing;

import dev.postbox.Require;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Base64;
import org.jspecify.annotations.Nullable;

/**
 * A Standard Webhooks symmetric signing secret, serialized as {@code whsec_<base64>}.
 *
 * <p>The key must decode to between {@value #MIN_KEY_BYTES} and {@value #MAX_KEY_BYTES} bytes, as
 * the specification requires. Instances never reveal the key in {@link #toString()}; use {@link
 * #serialized()} explicitly to store it.
 */
public final class WebhookSecret {

    /** The prefix that identifies a symmetric Standard Webhooks secret. */
    public static final String PREFIX = "whsec_";

    /** Minimum key size in bytes (192 bits). */
    public static final int MIN_KEY_BYTES = 24;

    /** Maximum key size in bytes (512 bits). */
    public static final int MAX_KEY_BYTES = 64;

    private static final int GENERATED_KEY_BYTES = 32;
    private static final SecureRandom RANDOM = new SecureRandom();

    private final byte[] key;

    private WebhookSecret(byte[] key) {
        this.key = key;
    }

    /**
     * Parses a {@code whsec_<base64>} secret.
     *
     * @throws IllegalArgumentException naming the problem (never echoing the secret) when the value is
     *     null, lacks the prefix, is not base64 or has a key of the wrong size
     */
    public static WebhookSecret parse(@Nullable String serialized) {
        if (serialized == null || serialized.isBlank()) {
            throw new IllegalArgumentException("webhook secret may not be null or blank");
        }
        String trimmed = serialized.strip();
        if (!trimmed.startsWith(PREFIX)) {
            throw new IllegalArgumentException("webhook secret must start with '" + PREFIX
                    + "' followed by the base64 key (Standard Webhooks format)");
        }
        byte[] key;
        try {
            key = Base64.getDecoder().decode(trimmed.substring(PREFIX.length()));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    "webhook secret after '" + PREFIX + "' is not valid base64 (" + e.getMessage() + ")");
        }
        return ofKey(key);
    }

    /**
     * Wraps raw key bytes (copied).
     *
     * @throws IllegalArgumentException when the key size is outside [24, 64] bytes
     */
    public static WebhookSecret ofKey(byte[] key) {
        Require.notNull(key, "key");
        if (key.length < MIN_KEY_BYTES || key.length > MAX_KEY_BYTES) {
            throw new IllegalArgumentException("webhook secret key must be between " + MIN_KEY_BYTES + " and "
                    + MAX_KEY_BYTES + " bytes, got " + key.length + " bytes");
        }
        return new WebhookSecret(key.clone());
    }

    /** Generates a fresh random 32-byte secret. */
    public static WebhookSecret generate() {
        byte[] key = new byte[GENERATED_KEY_BYTES];
        RANDOM.nextBytes(key);
        return new WebhookSecret(key);
    }

    /** The {@code whsec_<base64>} form, for storage or to hand to the receiver. Treat it as a secret. */
    public String serialized() {
        return PREFIX + Base64.getEncoder().encodeToString(key);
    }

    /** A copy of the raw key bytes. */
    public byte[] key() {
        return key.clone();
    }

    /** Key length in bytes. */
    public int keyLength() {
        return key.length;
    }

    @Override
    public boolean equals(@Nullable Object other) {
        return other instanceof WebhookSecret that && MessageDigest.isEqual(key, that.key);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(key);
    }

    /** Never contains key material. */
    @Override
    public String toString() {
        return "WebhookSecret[" + PREFIX + "<redacted>, " + key.length + " bytes]";
    }
}
