package dev.postbox.http;

import dev.postbox.http.internal.PlaintextSecrets;

/**
 * Encryption at rest of the webhook secrets Postbox stores: endpoint signing secrets and the values
 * of endpoint headers (bearer tokens and the like). The {@code EndpointRegistry} seals each value
 * before it is written to {@code outbox_endpoint} and opens it when the endpoint is read; header
 * names, URLs and everything else stay in clear.
 *
 * <p>The registry seals and opens every value with its {@link SecretSlot} (endpoint and field), so
 * an implementation can bind a sealed value to where it is stored; the default methods here ignore
 * the slot, for implementations written before slots existed. The default implementation is {@link
 * AesGcmSecretCipher} (AES-GCM, a key id stored with each value so keys can rotate, each value bound
 * to its slot). With keys configured it refuses a stored plain value (written before encryption was
 * configured) unless its plain-text migration switch is on, so that {@code
 * EndpointRegistry.reencryptSecrets()} can seal it.
 *
 * <p>Implementations must be thread-safe, must never put a plain or sealed value into an exception
 * message or a log line, and should name the key involved in their errors.
 */
public interface SecretCipher {

    /**
     * The text to store for {@code plaintext}.
     *
     * @throws IllegalStateException when this cipher cannot seal (no key configured)
     */
    String seal(String plaintext);

    /**
     * The plain value of a stored text: a sealed value is decrypted, a plain one (written before
     * encryption was configured) is returned as is.
     *
     * @throws IllegalStateException naming the key when the value cannot be decrypted (the key is
     *     not configured or differs from the one it was sealed with)
     */
    String open(String stored);

    /**
     * The text to store for {@code plaintext} in {@code slot}: an implementation may bind the sealed
     * value to the slot so that it opens nowhere else. The default ignores the slot.
     *
     * @throws IllegalStateException when this cipher cannot seal (no key configured)
     */
    default String seal(String plaintext, SecretSlot slot) {
        return seal(plaintext);
    }

    /**
     * The plain value of the text stored in {@code slot}. The default ignores the slot.
     *
     * @throws IllegalStateException when the value cannot be opened in this slot (a wrong or missing
     *     key, a value sealed for another slot, a refused plain value); the caller adds the slot to
     *     the message, which must name neither the value nor the key
     */
    default String open(String stored, SecretSlot slot) {
        return open(stored);
    }

    /**
     * Whether a stored text should be rewritten: it is plain, sealed with another key than the
     * active one, or sealed in an older format (for AES-GCM: {@code v1}, not bound to its slot).
     */
    boolean needsResealing(String stored);

    /** A short description for logs, e.g. {@code AES-GCM with key 'k2'} (never key material). */
    String describe();

    /**
     * Stores secrets in clear: an explicit choice ({@code postbox.http.secrets.allow-plaintext=true}),
     * for development only. Values sealed earlier cannot be read with it.
     */
    static SecretCipher plaintext() {
        return PlaintextSecrets.ALLOWED;
    }

    /**
     * The default when no key is configured: refuses to store a secret (registration fails with the
     * fix), and reads only plain values written before.
     */
    static SecretCipher unconfigured() {
        return PlaintextSecrets.REFUSED;
    }
}
