package dev.postbox.spring.http;

import dev.postbox.http.inbox.WebhookInbox;
import dev.postbox.http.signing.WebhookVerifier;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Settings under {@code postbox.inbox.*}: receiving Postbox (Standard Webhooks) webhooks with a
 * {@code WebhookInbox} bean, created when at least one secret is set.
 */
@ConfigurationProperties("postbox.inbox")
public class PostboxInboxProperties {

    /**
     * The sender's signing secrets (whsec_<base64>); two during rotation. A webhook verified by any of
     * them is accepted. Never logged.
     */
    private List<String> secrets = new ArrayList<>();

    /** How far webhook-timestamp may be from now before a webhook is rejected (replay protection). */
    private Duration tolerance = WebhookVerifier.DEFAULT_TOLERANCE;

    /** The table of received webhook-ids (created by Postbox's migration V3). */
    private String table = WebhookInbox.DEFAULT_TABLE;

    /** The largest webhook body accepted, in bytes; a larger one is answered 413 without being verified. */
    private int maxBodyBytes = WebhookInbox.DEFAULT_MAX_BODY_BYTES;

    public int getMaxBodyBytes() {
        return maxBodyBytes;
    }

    public void setMaxBodyBytes(int maxBodyBytes) {
        this.maxBodyBytes = maxBodyBytes;
    }

    public List<String> getSecrets() {
        return secrets;
    }

    public void setSecrets(List<String> secrets) {
        this.secrets = secrets;
    }

    public Duration getTolerance() {
        return tolerance;
    }

    public void setTolerance(Duration tolerance) {
        this.tolerance = tolerance;
    }

    public String getTable() {
        return table;
    }

    public void setTable(String table) {
        this.table = table;
    }

    @Override
    public String toString() {
        return "PostboxInboxProperties[secrets=" + secrets.size() + " (hidden), tolerance=" + tolerance + ", table="
                + table + "]";
    }
}
