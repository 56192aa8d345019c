package dev.postbox.http;

import dev.postbox.Require;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import javax.crypto.AEADBadTagException;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;
import org.jspecify.annotations.Nullable;

/**
 * The default {@link SecretCipher}: AES-GCM (128-bit tag, a random 96-bit nonce per value) with
 * keys identified by an id. A sealed value is stored as {@code enc:v2:<key-id>:<base64url(nonce ||
 * ciphertext || tag)>}. The authenticated data (AAD) is the prefix with the key id and the value's
 * {@link SecretSlot} (endpoint name and field): a value cannot be relabelled to another key, nor
 * copied to another endpoint's row or to another field (it then fails to open, with an error the
 * caller completes with the slot). Values of the older format {@code enc:v1:} (AAD: the prefix
 * only, written before slots existed) still open anywhere; {@link #needsResealing} reports them,
 * and {@code EndpointRegistry.reencryptSecrets()} rewrites them as {@code v2}.
 *
 * <p>Values are sealed with the active key and opened with whichever configured key their id names,
 * so a key rotates by adding the new key, making it active, re-encrypting ({@code
 * EndpointRegistry.reencryptSecrets()}) and then removing the old key.
 *
 * <p>With keys configured, a stored plain value (not sealed) is refused: an attacker who can write
 * the table could otherwise replace a sealed signing secret or bearer token with one they know.
 * Values stored in clear before encryption was configured are read only while the migration switch
 * {@link #migratingPlaintext(boolean)} ({@code postbox.http.secrets.migrate-plaintext}) is on: turn
 * it on, re-encrypt, turn it off.
 *
 * <p>Keys are 16, 24 or 32 bytes (AES-128/192/256; 32 recommended), given in base64. Immutable and
 * thread-safe; errors name the key id, never a key, a secret or a sealed value.
 */
public final class AesGcmSecretCipher implements SecretCipher {

    /** The marker every sealed value starts with. */
    public static final String PREFIX = "enc:";

    /** The format bound to its slot, which {@link #seal(String, SecretSlot)} writes. */
    private static final String BOUND = "v2";

    /** The format written before slots existed (and by {@link #seal(String)}): opens anywhere. */
    private static final String UNBOUND = "v1";

    private static final Pattern KEY_ID = Pattern.compile("[A-Za-z0-9_-]{1,64}");
    private static final int NONCE_BYTES = 12;
    private static final int TAG_BITS = 128;
    private static final SecureRandom RANDOM = new SecureRandom();

    private final Map<String, SecretKeySpec> keys;
    private final String activeKeyId;
    private final boolean migratingPlaintext;

    private AesGcmSecretCipher(Map<String, SecretKeySpec> keys, String activeKeyId, boolean migratingPlaintext) {
        this.keys = keys;
        this.activeKeyId = activeKeyId;
        this.migratingPlaintext = migratingPlaintext;
    }
    /**
     * A cipher over {@code base64Keys} (key id to base64 key) that seals with {@code activeKeyId}.
     *
     * @throws IllegalArgumentException naming the key id when an id or a key is invalid, or when the
     *     active key is not among the keys (never quoting a key)
     */
    public static AesGcmSecretCipher of(Map<String, String> base64Keys, String activeKeyId) {
        Require.notNull(base64Keys, "keys");
        Require.notNull(activeKeyId, "activeKeyId");
        Map<String, SecretKeySpec> keys = new LinkedHashMap<>();
        base64Keys.forEach((id, base64) -> {
            if (id == null || !KEY_ID.matcher(id).matches()) {
                throw new IllegalArgumentException("encryption key id '" + id + "' is invalid: use 1 to 64 letters,"
                        + " digits, '_' or '-' (e.g. 2026-01)");
            }
            byte[] key;
            try {
                key = Base64.getDecoder().decode(base64 == null ? "" : base64.strip());
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("encryption key '" + id + "' is not valid base64 (generate one"
                        + " with AesGcmSecretCipher.generateKey() or `openssl rand -base64 32`)");
            }
            if (key.length != 16 && key.length != 24 && key.length != 32) {
                throw new IllegalArgumentException("encryption key '" + id + "' is " + key.length + " bytes long;"
                        + " AES needs 16, 24 or 32 bytes (32 recommended: `openssl rand -base64 32`)");
            }
            keys.put(id, new SecretKeySpec(key, "AES"));
        });
        if (!keys.containsKey(activeKeyId)) {
            throw new IllegalArgumentException("the active encryption key '" + activeKeyId + "' is not among the"
                    + " configured keys " + keys.keySet() + ": add it or name one of them");
        }
        return new AesGcmSecretCipher(Map.copyOf(keys), activeKeyId, false);
    }

    /** A new random 256-bit key in base64, for configuration. */
    public static String generateKey() {
        byte[] key = new byte[32];
        RANDOM.nextBytes(key);
        return Base64.getEncoder().encodeToString(key);
    }

    /** Whether a stored text is a sealed value (of any key). */
    public static boolean isSealed(String stored) {
        return stored.startsWith(PREFIX);
    }

    /** The key id of a sealed value ("?" when the value is malformed). */
    public static String keyIdOf(String stored) {
        String[] parts = stored.split(":", 4);
        return parts.length == 4 && KEY_ID.matcher(parts[2]).matches() ? parts[2] : "?";
    }

    /** The id of the key new values are sealed with. */
    public String activeKeyId() {
        return activeKeyId;
    }

    /** The ids of every configured key. */
    public Set<String> keyIds() {
        return keys.keySet();
    }

    /**
     * This cipher with the plain-text migration switch on or off (off by default). While on, stored
     * plain values (written before encryption was configured) are read, so that {@code
     * EndpointRegistry.reencryptSecrets()} can seal them; while off, reading one fails naming this
     * switch. Turn it off again once re-encryption has run.
     */
    public AesGcmSecretCipher migratingPlaintext(boolean on) {
        return new AesGcmSecretCipher(keys, activeKeyId, on);
    }

    /** Whether stored plain values are read ({@link #migratingPlaintext(boolean)}). */
    public boolean isMigratingPlaintext() {
        return migratingPlaintext;
    }

    /**
     * Seals {@code plaintext} in the older, unbound format {@code v1}, which opens in any slot.
     * Postbox seals with {@link #seal(String, SecretSlot)}; this remains for callers that store
     * values of their own.
     */
    @Override
    public String seal(String plaintext) {
        Require.notNull(plaintext, "plaintext");
        return seal(plaintext, UNBOUND, null);
    }

    /** Seals {@code plaintext} bound to {@code slot} (format {@code v2}). */
    @Override
    public String seal(String plaintext, SecretSlot slot) {
        Require.notNull(plaintext, "plaintext");
        Require.notNull(slot, "slot");
        return seal(plaintext, BOUND, slot);
    }

    private String seal(String plaintext, String version, @Nullable SecretSlot slot) {
        String header = PREFIX + version + ":" + activeKeyId + ":";
        byte[] nonce = new byte[NONCE_BYTES];
        RANDOM.nextBytes(nonce);
        try {
            Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
            cipher.init(Cipher.ENCRYPT_MODE, keys.get(activeKeyId), new GCMParameterSpec(TAG_BITS, nonce));
            cipher.updateAAD(aad(header, slot));
            byte[] sealed = cipher.doFinal(plaintext.getBytes(StandardCharsets.UTF_8));
            byte[] out = new byte[NONCE_BYTES + sealed.length];
            System.arraycopy(nonce, 0, out, 0, NONCE_BYTES);
            System.arraycopy(sealed, 0, out, NONCE_BYTES, sealed.length);
            return header + Base64.getUrlEncoder().withoutPadding().encodeToString(out);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("Encrypting a webhook secret with key '" + activeKeyId + "' failed: "
                    + e.getClass().getSimpleName());
        }
    }

    /**
     * Opens a value without a slot: a {@code v1} value, or a plain one while migrating. A {@code v2}
     * value is refused (it opens only with {@link #open(String, SecretSlot)}).
     */
    @Override
    public String open(String stored) {
        Require.notNull(stored, "stored");
        return openIn(stored, null);
    }

    /** Opens a value stored in {@code slot}: {@code v2} bound to that slot, {@code v1} anywhere. */
    @Override
    public String open(String stored, SecretSlot slot) {
        Require.notNull(stored, "stored");
        Require.notNull(slot, "slot");
        return openIn(stored, slot);
    }

    private String openIn(String stored, @Nullable SecretSlot slot) {
        if (!isSealed(stored)) {
            if (migratingPlaintext) {
                return stored;
            }
            throw new IllegalStateException("A stored webhook secret is not encrypted although encryption keys are"
                    + " configured, so it is refused (a value written into the table directly is not trusted). If"
                    + " it was stored before encryption was configured, set postbox.http.secrets.migrate-plaintext"
                    + "=true (AesGcmSecretCipher.migratingPlaintext(true)), run EndpointRegistry.reencryptSecrets()"
                    + " (POST /actuator/postboxwebhooks) and set it back to false; otherwise register the value"
                    + " again");
        }
        String[] parts = stored.split(":", 4);
        String keyId = keyIdOf(stored);
        String version = parts.length > 1 ? parts[1] : "?";
        if (parts.length != 4 || !(version.equals(BOUND) || version.equals(UNBOUND)) || keyId.equals("?")) {
            throw new IllegalStateException("A stored webhook secret is not in the format enc:v2:<key-id>:<data>"
                    + " (format '" + version + "'); it cannot be decrypted");
        }
        if (version.equals(BOUND) && slot == null) {
            throw new IllegalStateException("A stored webhook secret (format v2) is bound to its endpoint and field:"
                    + " open it with open(stored, SecretSlot)");
        }
        SecretKeySpec key = keys.get(keyId);
        if (key == null) {
            throw new IllegalStateException("A stored webhook secret is encrypted with key '" + keyId + "', which is"
                    + " not configured (configured: " + keys.keySet() + "): add it to postbox.http.secrets.keys"
                    + " (keep old keys until EndpointRegistry.reencryptSecrets() has rewritten every value)");
        }
        try {
            byte[] data = Base64.getUrlDecoder().decode(parts[3]);
            if (data.length < NONCE_BYTES + TAG_BITS / 8) {
                throw new IllegalArgumentException("too short");
            }
            Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
            cipher.init(Cipher.DECRYPT_MODE, key, new GCMParameterSpec(TAG_BITS, data, 0, NONCE_BYTES));
            String header = PREFIX + version + ":" + keyId + ":";
            cipher.updateAAD(aad(header, version.equals(BOUND) ? slot : null));
            byte[] plain = cipher.doFinal(data, NONCE_BYTES, data.length - NONCE_BYTES);
            return new String(plain, StandardCharsets.UTF_8);
        } catch (AEADBadTagException e) {
            throw new IllegalStateException("A stored webhook secret cannot be decrypted with key '" + keyId + "': the"
                    + " configured key '" + keyId + "' is not the one it was encrypted with, the value was altered,"
                    + (version.equals(BOUND)
                            ? " or it was sealed for another endpoint or field (copied from another row or field;"
                                    + " register the value again for this endpoint)"
                            : " or it was corrupted"));
        } catch (GeneralSecurityException | IllegalArgumentException e) {
            throw new IllegalStateException("A stored webhook secret encrypted with key '" + keyId + "' is corrupt"
                    + " (" + e.getClass().getSimpleName() + ")");
        }
    }

    /**
     * The authenticated data: the header, then (for bound values) the slot's endpoint and field, each
     * preceded by its length so that no two slots give the same bytes.
     */
    private static byte[] aad(String header, @Nullable SecretSlot slot) {
        byte[] head = header.getBytes(StandardCharsets.US_ASCII);
        if (slot == null) {
            return head;
        }
        byte[] endpoint = slot.endpoint().getBytes(StandardCharsets.UTF_8);
        byte[] field = slot.field().getBytes(StandardCharsets.UTF_8);
        return ByteBuffer.allocate(head.length + 8 + endpoint.length + field.length)
                .put(head)
                .putInt(endpoint.length)
                .put(endpoint)
                .putInt(field.length)
                .put(field)
                .array();
    }

    /** Plain values, values of another key and unbound ({@code v1}) values are rewritten. */
    @Override
    public boolean needsResealing(String stored) {
        return !isSealed(stored)
                || !stored.startsWith(PREFIX + BOUND + ":")
                || !keyIdOf(stored).equals(activeKeyId);
    }

    @Override
    public String describe() {
        return "AES-GCM with key '" + activeKeyId + "'" + (migratingPlaintext ? " (migrating plain values)" : "");
    }

    @Override
    public String toString() {
        return "AesGcmSecretCipher[active=" + activeKeyId + ", keys=" + keys.keySet() + ", migratingPlaintext="
                + migratingPlaintext + "]";
    }
}
