package dev.postbox.chaos;

/**
 * A negative control: one deliberate defect. Engine defects are switched on in the worker
 * processes with {@code -Dpostbox.control.<name>=true} (outbox-core's and delivery-http's {@code
 * NegativeControls}, each checked at the one place its defect lives); harness defects change what
 * the harness's own worker or producer does. The checker is the same for every run.
 */
enum Control {
    /** The worker's local handler completes some unordered jobs without applying their effect. */
    LOST(null, "lost"),
    /** The producer enqueues unordered local jobs on a connection of their own, outside the business transaction. */
    GHOST(null, "ghosts"),
    /** Transactional completion commits although the lease token is stale. */
    UNFENCED_COMPLETION("unfencedCompletion", "duplicateEffectsLocal"),
    /** The claim ignores ordering keys. */
    IGNORE_ORDERING_KEY("ignoreOrderingKey", "orderViolations"),
    /** The materialiser enqueues fires without their fire key. */
    CRON_WITHOUT_FIRE_KEY("cronWithoutFireKey", "cronMisfires"),
    /** A retried webhook carries a new webhook-id. */
    WEBHOOK_ID_PER_ATTEMPT("webhookIdPerAttempt", "duplicateEffectsReceiver"),
    /** Each process paces an endpoint at its rate on its own, without the cluster-wide bucket. */
    RATE_LIMIT_PER_PROCESS("rateLimitPerProcess", "rateLimitViolations"),
    /** An expired lease is charged whether or not its attempt started (before issue 11). */
    CHARGE_AT_CLAIM("chargeAtClaim", "unexpectedDeadLetters");

    private final String engineFlag;
    private final String counter;

    Control(String engineFlag, String counter) {
        this.engineFlag = engineFlag;
        this.counter = counter;
    }

    /** The engine's system property for this defect, or null for a harness defect. */
    String systemProperty() {
        return engineFlag == null ? null : "postbox.control." + engineFlag;
    }

    /** The checker's count that this control must move above 0. */
    String counter() {
        return counter;
    }
}
