package dev.postbox.http;

import java.util.Arrays;
import java.util.Set;
import java.util.TreeSet;

/**
 * Maps an HTTP status to a {@link DeliveryOutcome}: see the table on {@link DeliveryOutcome}. By
 * default 408, 425 and 429 are the retryable client errors; more can be configured, for receivers
 * that use, say, 409 for "try again later".
 *
 * <p>Immutable; build with {@link #custom()} or take {@link #ofDefaults()}.
 */
public final class OutcomeClassifier {

    /** The client errors retried by default: Request Timeout, Too Early, Too Many Requests. */
    public static final Set<Integer> DEFAULT_RETRYABLE_CLIENT_ERRORS = Set.of(408, 425, 429);

    private static final OutcomeClassifier DEFAULTS = new OutcomeClassifier(DEFAULT_RETRYABLE_CLIENT_ERRORS);

    private final Set<Integer> retryableClientErrors;

    private OutcomeClassifier(Set<Integer> retryableClientErrors) {
        this.retryableClientErrors = Set.copyOf(retryableClientErrors);
    }

    /** The classification of the design: 408/425/429 retried, other 4xx dead, 410 disables. */
    public static OutcomeClassifier ofDefaults() {
        return DEFAULTS;
    }

    /** A builder starting from the defaults. */
    public static Builder custom() {
        return new Builder();
    }

    /** The client error statuses that are retried. */
    public Set<Integer> retryableClientErrors() {
        return retryableClientErrors;
    }

    /** The outcome of an attempt that received {@code status}. */
    public DeliveryOutcome classify(int status) {
        if (status >= 200 && status < 300) {
            return DeliveryOutcome.DONE;
        }
        if (status == 410 && !retryableClientErrors.contains(410)) {
            return DeliveryOutcome.DISABLE_ENDPOINT;
        }
        if (status >= 400 && status < 500) {
            return retryableClientErrors.contains(status) ? DeliveryOutcome.RETRY : DeliveryOutcome.DEAD;
        }
        // 3xx (never followed), 5xx, and anything non-standard: transient until the budget runs out.
        return DeliveryOutcome.RETRY;
    }

    /** The failure cause recorded for {@code status}. */
    public FailureCause causeOf(int status) {
        if (status >= 200 && status < 300) {
            return FailureCause.NONE;
        }
        return status >= 300 && status < 400 ? FailureCause.REDIRECT : FailureCause.HTTP_STATUS;
    }

    /** Whether a {@code Retry-After} header is honoured for {@code status}: 429 and 503. */
    public boolean honoursRetryAfter(int status) {
        return status == 429 || status == 503;
    }

    @Override
    public String toString() {
        return "OutcomeClassifier[retryableClientErrors=" + new TreeSet<>(retryableClientErrors) + "]";
    }

    /** Builder of {@link OutcomeClassifier}. */
    public static final class Builder {
        private final Set<Integer> retryable = new TreeSet<>(DEFAULT_RETRYABLE_CLIENT_ERRORS);

        private Builder() {}

        /**
         * Also retries these client error statuses (instead of dead-lettering).
         *
         * @throws IllegalArgumentException if a status is not in 400..499
         */
        public Builder retryStatuses(int... statuses) {
            Arrays.stream(statuses).forEach(status -> {
                if (status < 400 || status > 499) {
                    throw new IllegalArgumentException("retryStatuses must be client errors (400..499), got " + status);
                }
                retryable.add(status);
            });
            return this;
        }

        /** Builds the classifier. */
        public OutcomeClassifier build() {
            return new OutcomeClassifier(retryable);
        }
    }
}
