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
    CHARGE_AT_CLAIM("chargeAtClaim", "unexpectedDeadLetters"),
    /**
     * Harness (worker): the broker relays complete unordered messages with an even seq before the
     * broker has them, and publish them 8 s later (fire and forget); a worker that dies meanwhile
     * loses them. Moves {@code kafkaLost}, {@code amqpLost} and {@code natsLost}.
     */
    BROKER_COMPLETES_BEFORE_ACK(null, "kafkaLost"),
    /**
     * Harness (worker): unordered broker messages with an odd seq carry {@code <key>~attempt-<n>} as
     * their key (Kafka's postbox-key header, AMQP message-id, Nats-Msg-Id), so a redelivery has a new
     * one. Moves {@code natsDuplicates} (the stream cannot drop the copy) and every broker's {@code
     * DuplicatesAfterKeyDedupe}.
     */
    BROKER_KEY_PER_ATTEMPT(null, "natsDuplicates"),
    /**
     * Harness (worker): the Kafka relay sends its records without the ordering key as the record key,
     * so the producer spreads one key's records over the partitions. Moves {@code kafkaOrderViolations}
     * (and {@code kafkaRecordKeyMismatches}).
     */
    KAFKA_WITHOUT_RECORD_KEY(null, "kafkaOrderViolations"),
    /**
     * Harness (worker): local jobs and webhook deliveries whose seq is 25 modulo 50 reach their
     * handler as the next tenant's (default, acme, globex, initech, default...), as from an engine that
     * mixed up the tenants of claimed jobs: the local effect is recorded under that tenant, the
     * delivery carries its {@code <tenant>/} id (and takes its rate permit). Moves {@code
     * crossTenantEffects}.
     */
    TENANT_SWAP(null, "crossTenantEffects"),
    /**
     * A named tenant's idempotency key is deduplicated against every tenant's (outbox-core's {@code
     * tenantBlindKeys}, read at each enqueue in the producer's JVM): the same key in a second tenant
     * returns the first tenant's job. Moves {@code sharedKeyIntentsLost}.
     */
    TENANT_BLIND_KEYS("tenantBlindKeys", "sharedKeyIntentsLost");

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

    /** The worker's {@code -D} property that switches this harness defect on in the broker relays, or null. */
    String brokerRelayProperty() {
        return switch (this) {
            case BROKER_COMPLETES_BEFORE_ACK -> BrokerRelays.COMPLETES_BEFORE_ACK;
            case BROKER_KEY_PER_ATTEMPT -> BrokerRelays.KEY_PER_ATTEMPT;
            case KAFKA_WITHOUT_RECORD_KEY -> BrokerRelays.KAFKA_WITHOUT_RECORD_KEY;
            default -> null;
        };
    }
}
