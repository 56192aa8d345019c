package dev.postbox.http.internal;

import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;

/**
 * Deliberate defects of HTTP delivery for the chaos suite's negative controls; never set in
 * production. A negative control runs the chaos checker against a sender with one guarantee
 * switched off, to prove that the checker notices.
 *
 * <p>Each flag is read once, when this class loads, from the system property {@code
 * postbox.control.<name>} ({@code -Dpostbox.control.webhookIdPerAttempt=true}), and is checked at
 * the one place where its defect lives. The module logs a warning when it is built with a flag on.
 */
public final class NegativeControls {

    /** Prefix of the system properties. */
    public static final String PREFIX = "postbox.control.";

    /**
     * {@code webhookIdPerAttempt}: a retry is sent with a new {@code webhook-id} (the job's key plus
     * the attempt number), so a receiver that deduplicates on the id applies a retried delivery
     * again.
     */
    public static final boolean WEBHOOK_ID_PER_ATTEMPT = flag("webhookIdPerAttempt");

    /**
     * {@code rateLimitPerProcess}: an endpoint's rate limit, and a tenant's webhook rate limit, is
     * enforced per process (each JVM draws from a bucket of its own, of the endpoint's or tenant's
     * rate and burst) instead of through the cluster-wide bucket, so N processes together send up to
     * N times the rate.
     */
    public static final boolean RATE_LIMIT_PER_PROCESS = flag("rateLimitPerProcess");

    private NegativeControls() {}

    private static boolean flag(String name) {
        return Boolean.getBoolean(PREFIX + name);
    }

    /** The property names of the flags that are on. */
    static List<String> enabled() {
        List<String> on = new ArrayList<>();
        if (WEBHOOK_ID_PER_ATTEMPT) {
            on.add(PREFIX + "webhookIdPerAttempt");
        }
        if (RATE_LIMIT_PER_PROCESS) {
            on.add(PREFIX + "rateLimitPerProcess");
        }
        return on;
    }

    /** Warns when any flag is on. */
    public static void warnIfEnabled(Logger log) {
        List<String> on = enabled();
        if (!on.isEmpty()) {
            log.warn(
                    "Negative controls on: {}. These are deliberate defects for the chaos suite; never set"
                            + " them in production",
                    on);
        }
    }
}
