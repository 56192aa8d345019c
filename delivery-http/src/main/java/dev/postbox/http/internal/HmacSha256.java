package dev.postbox.http.internal;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/** HMAC-SHA256 helpers for Standard Webhooks signatures. */
public final class HmacSha256 {

    private static final String ALGORITHM = "HmacSHA256";

    private HmacSha256() {}

    /** HMAC-SHA256 of {@code content} under {@code key}. A fresh {@link Mac} per call: Mac is not thread-safe. */
    public static byte[] mac(byte[] key, byte[] content) {
        try {
            Mac mac = Mac.getInstance(ALGORITHM);
            mac.init(new SecretKeySpec(key, ALGORITHM));
            return mac.doFinal(content);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is required by every Java platform but failed", e);
        }
    }

    /** The Standard Webhooks signed content {@code {id}.{timestamp}.{body}} as bytes. */
    public static byte[] concat(String messageId, long timestampSeconds, byte[] body) {
        byte[] prefix = (messageId + "." + timestampSeconds + ".").getBytes(StandardCharsets.UTF_8);
        byte[] content = new byte[prefix.length + body.length];
        System.arraycopy(prefix, 0, content, 0, prefix.length);
        System.arraycopy(body, 0, content, prefix.length, body.length);
        return content;
    }
}
