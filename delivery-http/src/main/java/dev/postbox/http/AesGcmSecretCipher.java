package dev.postbox.http;

import dev.postbox.Require;
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

/**
 * The default {@link SecretCipher}: AES-GCM (128-bit tag, a random 96-bit nonce per value) with
 * keys identified by an id. A sealed value is stored as {@code enc:v1:<key-id>:<base64url(nonce ||
 * ciphertext || tag)>}; the prefix with the key id is authenticated too, so a value cannot be
 * relabelled to another key. Values are sealed with the active key and opened with whichever
 * configured key their id names, so a key rotates by adding the new key, making it active,
 * re-encrypting ({@code EndpointRegistry.reencryptSecrets()}) and then removing the old key.
 *
 * <p>Keys are 16, 24 or 32 bytes (AES-128/192/256; 32 recommended), given in base64. Immutable and
 * thread-safe; errors name the key id, never a key, a secret or a sealed value.
 */
public final class AesGcmSecretCipher implements SecretCipher {

    /** The marker every sealed value starts with. */
    public static final String PREFIX = "enc:";

    private static final String VERSION = "v1";
    private static final Pattern KEY_ID = Pattern.compile("[A-Za-z0-9_-]{1,64}");
    private static final int NONCE_BYTES = 12;
    private static final int TAG_BITS = 128;
    private static final SecureRandom RANDOM = new SecureRandom();

    private final Map<String, SecretKeySpec> keys;
    private final String activeKeyId;

    private AesGcmSecretCipher(Map<String, SecretKeySpec> keys, String activeKeyId) {
        this.keys = keys;
        this.activeKeyId = activeKeyId;
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
        return new AesGcmSecretCipher(Map.copyOf(keys), activeKeyId);
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

    @Override
    public String seal(String plaintext) {
        Require.notNull(plaintext, "plaintext");
        String header = PREFIX + VERSION + ":" + activeKeyId + ":";
        byte[] nonce = new byte[NONCE_BYTES];
        RANDOM.nextBytes(nonce);
        try {
            Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
            cipher.init(Cipher.ENCRYPT_MODE, keys.get(activeKeyId), new GCMParameterSpec(TAG_BITS, nonce));
            cipher.updateAAD(header.getBytes(StandardCharsets.US_ASCII));
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

    @Override
    public String open(String stored) {
        Require.notNull(stored, "stored");
        if (!isSealed(stored)) {
            return stored;
        }
        String[] parts = stored.split(":", 4);
        String keyId = keyIdOf(stored);
        if (parts.length != 4 || !parts[1].equals(VERSION) || keyId.equals("?")) {
            throw new IllegalStateException("A stored webhook secret is not in the format enc:v1:<key-id>:<data>"
                    + " (format '" + (parts.length > 1 ? parts[1] : "?") + "'); it cannot be decrypted");
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
            cipher.updateAAD((PREFIX + VERSION + ":" + keyId + ":").getBytes(StandardCharsets.US_ASCII));
            byte[] plain = cipher.doFinal(data, NONCE_BYTES, data.length - NONCE_BYTES);
            return new String(plain, StandardCharsets.UTF_8);
        } catch (AEADBadTagException e) {
            throw new IllegalStateException("A stored webhook secret cannot be decrypted with key '" + keyId + "': the"
                    + " configured key '" + keyId + "' is not the one it was encrypted with, or the value was altered");
        } catch (GeneralSecurityException | IllegalArgumentException e) {
            throw new IllegalStateException("A stored webhook secret encrypted with key '" + keyId + "' is corrupt"
                    + " (" + e.getClass().getSimpleName() + ")");
        }
    }

    @Override
    public boolean needsResealing(String stored) {
        return !isSealed(stored) || !keyIdOf(stored).equals(activeKeyId);
    }

    @Override
    public String describe() {
        return "AES-GCM with key '" + activeKeyId + "'";
    }

    @Override
    public String toString() {
        return "AesGcmSecretCipher[active=" + activeKeyId + ", keys=" + keys.keySet() + "]";
    }
}
