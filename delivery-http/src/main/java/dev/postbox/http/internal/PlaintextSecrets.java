package dev.postbox.http.internal;

import dev.postbox.http.AesGcmSecretCipher;
import dev.postbox.http.SecretCipher;

/** {@link SecretCipher#plaintext()} and {@link SecretCipher#unconfigured()}: no key. */
public final class PlaintextSecrets implements SecretCipher {

    /** Stores in clear. */
    public static final PlaintextSecrets ALLOWED = new PlaintextSecrets(true);

    /** Refuses to store; reads plain values. */
    public static final PlaintextSecrets REFUSED = new PlaintextSecrets(false);

    private final boolean allowed;

    private PlaintextSecrets(boolean allowed) {
        this.allowed = allowed;
    }

    @Override
    public String seal(String plaintext) {
        if (!allowed) {
            throw new IllegalStateException("Webhook secrets (signing secrets and header values) would be stored in"
                    + " clear: configure an encryption key (postbox.http.secrets.keys.<key-id>=<base64 AES key>"
                    + " and postbox.http.secrets.active-key=<key-id>, or HttpDeliveryModule.Builder.secretCipher("
                    + "AesGcmSecretCipher...); generate a key with AesGcmSecretCipher.generateKey()), or allow"
                    + " plain text explicitly for development (postbox.http.secrets.allow-plaintext=true)");
        }
        if (AesGcmSecretCipher.isSealed(plaintext)) {
            throw new IllegalArgumentException("a secret value may not start with '" + AesGcmSecretCipher.PREFIX
                    + "', the marker of encrypted values");
        }
        return plaintext;
    }

    @Override
    public String open(String stored) {
        if (AesGcmSecretCipher.isSealed(stored)) {
            throw new IllegalStateException("A stored webhook secret is encrypted with key '"
                    + AesGcmSecretCipher.keyIdOf(stored) + "', but no encryption key is configured: add that key"
                    + " to postbox.http.secrets.keys");
        }
        return stored;
    }

    @Override
    public boolean needsResealing(String stored) {
        return false;
    }

    @Override
    public String describe() {
        return allowed ? "plain text (postbox.http.secrets.allow-plaintext=true)" : "no encryption key configured";
    }
}
