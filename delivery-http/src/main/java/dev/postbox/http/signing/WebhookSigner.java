package dev.postbox.http.signing;

import dev.postbox.Require;
import dev.postbox.http.internal.HmacSha256;
import java.util.Base64;
import java.util.List;

/**
 * Produces the Standard Webhooks {@code webhook-signature} header value: {@code v1,<base64
 * HMAC-SHA256 of "{id}.{timestamp}.{body}">}, one entry per active secret separated by a space, so
 * that a receiver holding either the old or the new secret accepts the message during a rotation.
 *
 * <p>Immutable and thread-safe.
 */
public final class WebhookSigner {

    /** The version identifier of symmetric (HMAC-SHA256) signatures. */
    public static final String VERSION = "v1";

    private final List<WebhookSecret> secrets;

    private WebhookSigner(List<WebhookSecret> secrets) {
        this.secrets = secrets;
    }

    /**
     * A signer for the given active secrets, in the order their signatures appear in the header.
     *
     * @throws IllegalArgumentException if {@code secrets} is empty
     */
    public static WebhookSigner of(List<WebhookSecret> secrets) {
        Require.notNull(secrets, "secrets");
        if (secrets.isEmpty()) {
            throw new IllegalArgumentException("secrets may not be empty: an endpoint needs at least one secret");
        }
        secrets.forEach(secret -> Require.element(secret, "secrets"));
        return new WebhookSigner(List.copyOf(secrets));
    }

    /** A signer for the given active secrets. */
    public static WebhookSigner of(WebhookSecret... secrets) {
        return of(List.of(secrets));
    }

    /** The active secrets (never printed: see {@link WebhookSecret#toString()}). */
    public List<WebhookSecret> secrets() {
        return secrets;
    }

    /**
     * Signs one attempt.
     *
     * @param messageId the stable message id ({@code webhook-id}); may not contain {@code '.'}, as the
     *     specification requires, since it delimits the signed content
     * @param timestampSeconds the attempt's Unix time in seconds ({@code webhook-timestamp})
     * @param body the exact bytes sent as the request body
     * @return the header value, e.g. {@code v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=}
     */
    public String sign(String messageId, long timestampSeconds, byte[] body) {
        byte[] content = signedContent(messageId, timestampSeconds, body);
        StringBuilder header = new StringBuilder();
        for (WebhookSecret secret : secrets) {
            if (header.length() > 0) {
                header.append(' ');
            }
            header.append(VERSION)
                    .append(',')
                    .append(Base64.getEncoder().encodeToString(HmacSha256.mac(secret.key(), content)));
        }
        return header.toString();
    }

    /** The bytes that are signed: {@code {id}.{timestamp}.{body}}. */
    static byte[] signedContent(String messageId, long timestampSeconds, byte[] body) {
        Require.notNull(messageId, "messageId");
        Require.notNull(body, "body");
        if (messageId.isEmpty()) {
            throw new IllegalArgumentException("messageId may not be empty");
        }
        if (messageId.indexOf('.') >= 0) {
            throw new IllegalArgumentException("messageId may not contain '.', it delimits the signed content");
        }
        return HmacSha256.concat(messageId, timestampSeconds, body);
    }

    @Override
    public String toString() {
        return "WebhookSigner[" + secrets.size() + " secret(s)]";
    }
}
