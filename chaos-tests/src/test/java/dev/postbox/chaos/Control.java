package dev.postbox.chaos;

/**
 * A negative control: one deliberate defect. Engine defects are switched on in the worker
 * processes with {@code -Dpostbox.control.<name>=true} (outbox-core's and delivery-http's {@code
 * NegativeControls}, each checked at the one place its defect lives); harness defects change what
 * the harness's own worker or producer does. The checker is the same for every run.
 */
enum Control {
    /**
     * Harness (worker): the local handler completes unordered jobs with {@code seq % 50 == 0} without
     * applying their effect.
     */
    LOST(null, "lost"),
    /** The producer enqueues unordered local jobs on a connection of their own, outside the business transaction. */
    GHOST(null, "ghosts"),
    /**
     * Harness (worker): the local handler also sends unordered jobs with {@code seq % 25 == 10} to the
     * receiver's {@code rx} as a webhook (in its completing transaction), a target their kind never
     * sends to.
     */
    MISROUTED_EFFECT(null, "unexpectedTargets"),
    /**
     * Harness (worker): the delivery of events with {@code seq % 5 == 2} to the subscriber {@code
     * sub5} completes without being sent.
     */
    FAN_OUT_SKIPS_A_SUBSCRIBER(null, "fanOutMissing"),
    /**
     * Harness (producer): poison jobs with an even seq get a budget of {@code POISON_BUDGET + 1}, so
     * they are dead-lettered one attempt late (as an engine that overran the budget would).
     */
    POISON_ATTEMPT_TOO_MANY(null, "poisonViolations"),
    /**
     * Harness (worker): the fan-out job of events with {@code seq % 5 == 4} expands (every subscriber
     * gets its delivery) and is then snoozed for an hour instead of completing: a job that is never
     * terminal although its work is done. Due after the drain deadline, so the drain does not wait for it.
     */
    FAN_OUT_NEVER_COMPLETES(null, "notTerminal"),
    /**
     * Harness (worker's HTTP client): requests to {@code rx} with {@code seq % 50 == 30} go out first
     * with a corrupted {@code webhook-signature}, then again as signed (so the effect is not lost).
     */
    BAD_SIGNATURE(null, "receiverSignatureRejections"),
    /**
     * Harness (producer): business transactions with {@code tx % 50 == 25} enqueue one job whose
     * payload is truncated JSON (a broken serialiser); Postbox refuses it, the transaction fails.
     */
    BROKEN_ENQUEUE(null, "producerFailures"),
    /**
     * Harness (worker): the first incarnation of worker {@code w1} halts with status 1 (not a crash
     * point's) {@value ChaosRun#CONTROL_EXIT_AFTER_MS} ms after READY, as a JVM that dies of an error
     * of its own would; the fleet restarts it. Switched on per incarnation by the driver ({@link
     * WorkerDefects#EXIT_AFTER_MS}).
     */
    WORKER_EXITS(null, "unexpectedWorkerExits"),
    /** Transactional completion commits although the lease token is stale. */
    UNFENCED_COMPLETION("unfencedCompletion", "duplicateEffectsLocal"),
    /**
     * The claim ignores ordering keys: a key's jobs run side by side ({@code keyHandlerOverlaps}) and
     * out of their commit order ({@code commitOrderInversions}, asserted beside it).
     */
    IGNORE_ORDERING_KEY("ignoreOrderingKey", "keyHandlerOverlaps"),
    /**
     * Harness (producer): hung jobs with an even seq carry a time limit of their own (60 s) longer
     * than they hang, as from an engine that never enforced the kind's: their first attempts run for
     * the whole hang.
     */
    HUNG_WITHOUT_TIME_LIMIT(null, "hungAttemptsOverrun"),
    /**
     * Harness (worker): a deaf hung handler's first attempt of an odd seq, given up for its time limit,
     * writes its effect on a connection of its own when it comes back, as from an engine whose give-up
     * left the late call's transaction able to commit: the retry's effect and the late one both land.
     */
    HUNG_LATE_EFFECT_ESCAPES(null, "duplicateEffectsHung"),
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
     * Harness (worker): unordered broker messages with an odd seq carry {@code <key>~<random>} as
     * their key (Kafka's postbox-key header, AMQP message-id, Nats-Msg-Id), a new one at each send, so
     * a redelivery has a new one; the run's after-ack halts come only after such a message. Moves {@code natsDuplicates} (the stream cannot drop the copy) and every broker's {@code
     * DuplicatesAfterKeyDedupe}.
     */
    BROKER_KEY_PER_SEND(null, "natsDuplicates"),
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

    /**
     * The worker's {@code -D} property that switches this harness defect on in the worker's handlers or
     * HTTP client ({@code chaos.control.<name>}), or null.
     */
    String workerProperty() {
        return switch (this) {
            case LOST -> WorkerDefects.LOST;
            case MISROUTED_EFFECT -> WorkerDefects.MISROUTED_EFFECT;
            case FAN_OUT_SKIPS_A_SUBSCRIBER -> WorkerDefects.FAN_OUT_SKIPS_A_SUBSCRIBER;
            case FAN_OUT_NEVER_COMPLETES -> WorkerDefects.FAN_OUT_NEVER_COMPLETES;
            case BAD_SIGNATURE -> WorkerDefects.BAD_SIGNATURE;
            case TENANT_SWAP -> WorkerDefects.TENANT_SWAP;
            case HUNG_LATE_EFFECT_ESCAPES -> WorkerDefects.HUNG_LATE_EFFECT_ESCAPES;
            default -> null;
        };
    }

    /** The worker's {@code -D} property that switches this harness defect on in the broker relays, or null. */
    String brokerRelayProperty() {
        return switch (this) {
            case BROKER_COMPLETES_BEFORE_ACK -> BrokerRelays.COMPLETES_BEFORE_ACK;
            case BROKER_KEY_PER_SEND -> BrokerRelays.KEY_PER_SEND;
            case KAFKA_WITHOUT_RECORD_KEY -> BrokerRelays.KAFKA_WITHOUT_RECORD_KEY;
            default -> null;
        };
    }
}
