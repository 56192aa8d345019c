package dev.postbox.spring.endpoint;

import dev.postbox.spring.internal.PropertyChecks;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Settings under postbox.admin.*: what the postbox actuator endpoint may do. Expose
 * the endpoint itself with management.endpoints.web.exposure.include=postbox and secure it
 * like any actuator endpoint.
 */
@ConfigurationProperties("postbox.admin")
public class PostboxAdminProperties {

    /** Default of {@link #getDeadLetterLimit()}. */
    public static final int DEFAULT_DEAD_LETTER_LIMIT = 100;

    /**
     * Whether the endpoint's write operations (replay, purge, cancel, pause, resume) run; when false
     * they are refused with HTTP 403 and a message naming this property.
     */
    private boolean writeEnabled = false;

    /**
     * Whether job lookup shows the job's payload. Payloads may hold personal data and are hidden by
     * default, as in logs.
     */
    private boolean showPayloads = false;

    /** How many dead letters a list returns when the request names no limit; at most 1000. */
    private int deadLetterLimit = DEFAULT_DEAD_LETTER_LIMIT;

    public boolean isWriteEnabled() {
        return writeEnabled;
    }

    public void setWriteEnabled(boolean writeEnabled) {
        this.writeEnabled = writeEnabled;
    }

    public boolean isShowPayloads() {
        return showPayloads;
    }

    public void setShowPayloads(boolean showPayloads) {
        this.showPayloads = showPayloads;
    }

    public int getDeadLetterLimit() {
        return deadLetterLimit;
    }

    public void setDeadLetterLimit(int deadLetterLimit) {
        this.deadLetterLimit = PropertyChecks.between(
                deadLetterLimit,
                1,
                PostboxDeadLettersEndpoint.MAX_DEAD_LETTER_LIMIT,
                "postbox.admin.dead-letter-limit");
    }
}
