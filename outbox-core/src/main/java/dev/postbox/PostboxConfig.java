package dev.postbox;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ThreadFactory;
import org.jspecify.annotations.Nullable;

/**
 * Engine settings. Immutable; build with {@link #custom()} or take {@link #ofDefaults()}. The
 * {@code DEFAULT_*} constants are the documented defaults (the Spring Boot starter uses them too).
 */
public final class PostboxConfig {

    public static final int DEFAULT_CONCURRENCY = 10;
    public static final int DEFAULT_CLAIM_BATCH_SIZE = 500;
    public static final Duration DEFAULT_POLL_INTERVAL = Duration.ofSeconds(1);
    public static final Duration DEFAULT_NOTIFY_INTERVAL = Duration.ofMillis(2);
    public static final Duration DEFAULT_VISIBILITY_TIMEOUT = Duration.ofSeconds(30);
    public static final Duration DEFAULT_HEARTBEAT_INTERVAL = Duration.ofSeconds(10);
    public static final Duration DEFAULT_RESCUE_INTERVAL = Duration.ofSeconds(5);
    public static final Duration DEFAULT_START_MARK_INTERVAL = Duration.ofSeconds(1);
    public static final int DEFAULT_COMPLETION_BATCH_SIZE = 500;
    public static final Duration DEFAULT_COMPLETION_FLUSH_INTERVAL = Duration.ofMillis(5);
    public static final Duration DEFAULT_SHUTDOWN_GRACE = Duration.ofSeconds(30);
    public static final Duration DEFAULT_UNKNOWN_KIND_DELAY = Duration.ofMinutes(1);
    public static final Duration DEFAULT_IDEMPOTENCY_WINDOW = Duration.ofDays(7);
    public static final int DEFAULT_MAX_PAYLOAD_BYTES = 1024 * 1024;
    public static final Duration DEFAULT_ARCHIVE_RETENTION = Duration.ofDays(7);
    public static final int DEFAULT_PARTITIONS_AHEAD = 3;
    public static final Duration DEFAULT_MAINTENANCE_INTERVAL = Duration.ofMinutes(1);
    public static final Duration DEFAULT_SLOW_ATTEMPT_THRESHOLD = Duration.ofSeconds(5);
    public static final int DEFAULT_HIGH_LANE_WEIGHT = 60;
    public static final int DEFAULT_NORMAL_LANE_WEIGHT = 30;
    public static final int DEFAULT_LOW_LANE_WEIGHT = 10;
    /** Largest result a handler may return, in bytes of JSON ({@link JobOutcome#done(Object)}). */
    public static final int DEFAULT_MAX_RESULT_BYTES = 64 * 1024;
    /** Tenants with work one claim visits at most (round robin from where the last claim stopped). */
    public static final int DEFAULT_TENANTS_PER_CLAIM = 100;

    private static final PostboxConfig DEFAULTS = custom().build();

    private final String workerId;
    private final Set<String> queues;
    private final int concurrency;
    private final int claimBatchSize;
    private final int prefetch;
    private final Duration pollInterval;
    private final boolean listenNotify;
    private final Duration notifyInterval;
    private final Duration visibilityTimeout;
    private final Duration heartbeatInterval;
    private final Duration rescueInterval;
    private final Duration startMarkInterval;
    private final int completionBatchSize;
    private final Duration completionFlushInterval;
    private final Duration shutdownGrace;
    private final Duration unknownKindDelay;
    private final RetryPolicy retryPolicy;
    private final AttemptLogLevel attemptLog;
    private final Duration idempotencyWindow;
    private final int maxPayloadBytes;
    private final TransactionMode transactionMode;
    private final Duration archiveRetention;
    private final int partitionsAhead;
    private final Duration maintenanceInterval;
    private final @Nullable ThreadFactory workerThreadFactory;
    private final int[] laneWeights;
    private final Duration slowAttemptThreshold;
    private final @Nullable Duration attemptTimeLimit;
    private final @Nullable Integer stuckThreadLimit;
    private final int maxResultBytes;
    private final Map<String, Integer> queueConcurrency;
    private final int tenantsPerClaim;
    private final @Nullable Integer tenantConcurrency;
    private final Map<String, Integer> tenantConcurrencyOverrides;

    private PostboxConfig(Builder b) {
        this.workerId = b.workerId != null ? b.workerId : defaultWorkerId();
        this.queues = Set.copyOf(b.queues);
        this.concurrency = b.concurrency;
        this.claimBatchSize = b.claimBatchSize;
        this.prefetch = b.prefetch != null ? b.prefetch : 2 * b.claimBatchSize;
        this.pollInterval = b.pollInterval;
        this.listenNotify = b.listenNotify;
        this.notifyInterval = b.notifyInterval;
        this.visibilityTimeout = b.visibilityTimeout;
        this.heartbeatInterval = b.heartbeatInterval;
        this.rescueInterval = b.rescueInterval;
        this.startMarkInterval = b.startMarkInterval;
        this.completionBatchSize = b.completionBatchSize;
        this.completionFlushInterval = b.completionFlushInterval;
        this.shutdownGrace = b.shutdownGrace;
        this.unknownKindDelay = b.unknownKindDelay;
        this.retryPolicy = b.retryPolicy;
        this.attemptLog = b.attemptLog;
        this.idempotencyWindow = b.idempotencyWindow;
        this.maxPayloadBytes = b.maxPayloadBytes;
        this.transactionMode = b.transactionMode;
        this.archiveRetention = b.archiveRetention;
        this.partitionsAhead = b.partitionsAhead;
        this.maintenanceInterval = b.maintenanceInterval;
        this.workerThreadFactory = b.workerThreadFactory;
        this.laneWeights = b.laneWeights.clone();
        this.slowAttemptThreshold = b.slowAttemptThreshold;
        this.attemptTimeLimit = b.attemptTimeLimit;
        this.stuckThreadLimit = b.stuckThreadLimit;
        this.maxResultBytes = b.maxResultBytes;
        this.queueConcurrency = Map.copyOf(b.queueConcurrency);
        this.tenantsPerClaim = b.tenantsPerClaim;
        this.tenantConcurrency = b.tenantConcurrency;
        this.tenantConcurrencyOverrides = Map.copyOf(b.tenantConcurrencyOverrides);
        if (queues.isEmpty()) {
            throw new IllegalArgumentException("queues may not be empty: name at least one queue to serve");
        }
        if (heartbeatInterval.compareTo(visibilityTimeout) >= 0) {
            throw new IllegalArgumentException("heartbeatInterval (" + heartbeatInterval
                    + ") must be shorter than visibilityTimeout (" + visibilityTimeout
                    + "), or leases expire between heartbeats");
        }
    }

    private static String defaultWorkerId() {
        String runtime = ManagementFactory.getRuntimeMXBean().getName(); // pid@host
        return runtime + "-" + UUID.randomUUID().toString().substring(0, 8);
    }

    public static PostboxConfig ofDefaults() {
        return DEFAULTS;
    }

    public static Builder custom() {
        return new Builder();
    }

    /** A builder preset with this config's values. */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.workerId = workerId;
        b.queues.clear();
        b.queues.addAll(queues);
        b.concurrency = concurrency;
        b.claimBatchSize = claimBatchSize;
        b.prefetch = prefetch;
        b.pollInterval = pollInterval;
        b.listenNotify = listenNotify;
        b.notifyInterval = notifyInterval;
        b.visibilityTimeout = visibilityTimeout;
        b.heartbeatInterval = heartbeatInterval;
        b.rescueInterval = rescueInterval;
        b.startMarkInterval = startMarkInterval;
        b.completionBatchSize = completionBatchSize;
        b.completionFlushInterval = completionFlushInterval;
        b.shutdownGrace = shutdownGrace;
        b.unknownKindDelay = unknownKindDelay;
        b.retryPolicy = retryPolicy;
        b.attemptLog = attemptLog;
        b.idempotencyWindow = idempotencyWindow;
        b.maxPayloadBytes = maxPayloadBytes;
        b.transactionMode = transactionMode;
        b.archiveRetention = archiveRetention;
        b.partitionsAhead = partitionsAhead;
        b.maintenanceInterval = maintenanceInterval;
        b.workerThreadFactory = workerThreadFactory;
        b.laneWeights = laneWeights.clone();
        b.slowAttemptThreshold = slowAttemptThreshold;
        b.attemptTimeLimit = attemptTimeLimit;
        b.stuckThreadLimit = stuckThreadLimit;
        b.maxResultBytes = maxResultBytes;
        b.queueConcurrency.putAll(queueConcurrency);
        b.tenantsPerClaim = tenantsPerClaim;
        b.tenantConcurrency = tenantConcurrency;
        b.tenantConcurrencyOverrides.putAll(tenantConcurrencyOverrides);
        return b;
    }

    /** This process's worker id: lease owner and registry key. */
    public String workerId() {
        return workerId;
    }

    /** Queues this engine claims from. */
    public Set<String> queues() {
        return queues;
    }

    /** Handler threads: jobs run at the same time. */
    public int concurrency() {
        return concurrency;
    }

    /** Most jobs claimed by one statement. */
    public int claimBatchSize() {
        return claimBatchSize;
    }

    /**
     * Claimed jobs that may wait locally for a free thread (their leases are kept alive); twice the
     * claim batch unless set. Together with the handler threads it bounds the claims a process
     * holds, and so the pipeline depth: the benchmark sweep found it the main throughput lever.
     */
    public int prefetch() {
        return prefetch;
    }

    public Duration pollInterval() {
        return pollInterval;
    }

    public boolean listenNotify() {
        return listenNotify;
    }

    /**
     * The shortest time between two {@code NOTIFY postbox_job} this instance sends for jobs enqueued
     * through its {@link Outbox}. The notifications come from a connection of Postbox's own after the
     * enqueueing transaction commits, never from that transaction; the first one after a quiet
     * interval goes at once, and the commits during the interval after it share one more at its end.
     * The same interval paces the checks for the commit of jobs enqueued on plain JDBC connections.
     */
    public Duration notifyInterval() {
        return notifyInterval;
    }

    public Duration visibilityTimeout() {
        return visibilityTimeout;
    }

    public Duration heartbeatInterval() {
        return heartbeatInterval;
    }

    public Duration rescueInterval() {
        return rescueInterval;
    }

    /**
     * How often the engine records, in one statement, which running attempts have started. An
     * attempt is charged when its lease expires only if its start was recorded (a job suspected of
     * crashing its worker is recorded before its handler runs), so this bounds how long an attempt
     * can run uncharged; short jobs finish first and cost nothing.
     */
    public Duration startMarkInterval() {
        return startMarkInterval;
    }

    public int completionBatchSize() {
        return completionBatchSize;
    }

    public Duration completionFlushInterval() {
        return completionFlushInterval;
    }

    public Duration shutdownGrace() {
        return shutdownGrace;
    }

    public Duration unknownKindDelay() {
        return unknownKindDelay;
    }

    /** The retry policy of handlers that do not bring their own. */
    public RetryPolicy retryPolicy() {
        return retryPolicy;
    }

    public AttemptLogLevel attemptLog() {
        return attemptLog;
    }

    public Duration idempotencyWindow() {
        return idempotencyWindow;
    }

    public int maxPayloadBytes() {
        return maxPayloadBytes;
    }

    public TransactionMode transactionMode() {
        return transactionMode;
    }

    public Duration archiveRetention() {
        return archiveRetention;
    }

    public int partitionsAhead() {
        return partitionsAhead;
    }

    public Duration maintenanceInterval() {
        return maintenanceInterval;
    }

    public @Nullable ThreadFactory workerThreadFactory() {
        return workerThreadFactory;
    }

    /** Claim shares of the high, normal and low priority lanes. */
    public int[] laneWeights() {
        return laneWeights.clone();
    }

    /** Successful attempts at least this slow are logged at INFO on {@code dev.postbox.attempt}. */
    public Duration slowAttemptThreshold() {
        return slowAttemptThreshold;
    }

    /**
     * The time limit of an attempt whose job and kind set none; empty (the default): no limit. See
     * {@link Builder#attemptTimeLimit(Duration)}.
     */
    public Optional<Duration> attemptTimeLimit() {
        return Optional.ofNullable(attemptTimeLimit);
    }

    /**
     * Handler threads stuck in attempts given up for their time limit that this process tolerates:
     * each is replaced while there are at most this many; beyond, no more are replaced and the
     * engine reports itself unhealthy. Default: {@link #concurrency()}.
     */
    public int stuckThreadLimit() {
        return stuckThreadLimit != null ? stuckThreadLimit : concurrency;
    }

    /** Largest result, in bytes of JSON, a handler may return with its job. */
    public int maxResultBytes() {
        return maxResultBytes;
    }

    /** Per-queue caps on the jobs this process runs at once (claimed jobs count). */
    public Map<String, Integer> queueConcurrency() {
        return queueConcurrency;
    }

    /** Most tenants with work one claim visits (round robin from where the previous claim stopped). */
    public int tenantsPerClaim() {
        return tenantsPerClaim;
    }

    /**
     * The most jobs of one tenant this process holds at once (claimed jobs count), for the tenant
     * (by id; {@code null} for the default tenant): its override, else the default for every tenant;
     * empty when uncapped.
     */
    public java.util.OptionalInt tenantConcurrency(@Nullable String tenant) {
        Integer max = tenantConcurrencyOverrides.getOrDefault(TenantId.key(tenant), tenantConcurrency);
        return max == null ? java.util.OptionalInt.empty() : java.util.OptionalInt.of(max);
    }

    /** Whether some tenant has a per-process cap. */
    public boolean tenantsCapped() {
        return tenantConcurrency != null || !tenantConcurrencyOverrides.isEmpty();
    }

    /** Builds a {@link PostboxConfig}; every setter validates its argument. */
    public static final class Builder {
        private @Nullable String workerId;
        private final Set<String> queues = new LinkedHashSet<>(Set.of(JobRequest.DEFAULT_QUEUE));
        private int concurrency = DEFAULT_CONCURRENCY;
        private int claimBatchSize = DEFAULT_CLAIM_BATCH_SIZE;
        private @Nullable Integer prefetch;
        private Duration pollInterval = DEFAULT_POLL_INTERVAL;
        private boolean listenNotify = true;
        private Duration notifyInterval = DEFAULT_NOTIFY_INTERVAL;
        private Duration visibilityTimeout = DEFAULT_VISIBILITY_TIMEOUT;
        private Duration heartbeatInterval = DEFAULT_HEARTBEAT_INTERVAL;
        private Duration rescueInterval = DEFAULT_RESCUE_INTERVAL;
        private Duration startMarkInterval = DEFAULT_START_MARK_INTERVAL;
        private int completionBatchSize = DEFAULT_COMPLETION_BATCH_SIZE;
        private Duration completionFlushInterval = DEFAULT_COMPLETION_FLUSH_INTERVAL;
        private Duration shutdownGrace = DEFAULT_SHUTDOWN_GRACE;
        private Duration unknownKindDelay = DEFAULT_UNKNOWN_KIND_DELAY;
        private RetryPolicy retryPolicy = RetryPolicy.ofDefaults();
        private AttemptLogLevel attemptLog = AttemptLogLevel.FAILURES;
        private Duration idempotencyWindow = DEFAULT_IDEMPOTENCY_WINDOW;
        private int maxPayloadBytes = DEFAULT_MAX_PAYLOAD_BYTES;
        private TransactionMode transactionMode = TransactionMode.REQUIRED;
        private Duration archiveRetention = DEFAULT_ARCHIVE_RETENTION;
        private int partitionsAhead = DEFAULT_PARTITIONS_AHEAD;
        private Duration maintenanceInterval = DEFAULT_MAINTENANCE_INTERVAL;
        private @Nullable ThreadFactory workerThreadFactory;
        private int[] laneWeights = {DEFAULT_HIGH_LANE_WEIGHT, DEFAULT_NORMAL_LANE_WEIGHT, DEFAULT_LOW_LANE_WEIGHT};
        private final Map<String, Integer> queueConcurrency = new LinkedHashMap<>();
        private int tenantsPerClaim = DEFAULT_TENANTS_PER_CLAIM;
        private @Nullable Integer tenantConcurrency;
        private final Map<String, Integer> tenantConcurrencyOverrides = new LinkedHashMap<>();
        private Duration slowAttemptThreshold = DEFAULT_SLOW_ATTEMPT_THRESHOLD;
        private @Nullable Duration attemptTimeLimit;
        private @Nullable Integer stuckThreadLimit;
        private int maxResultBytes = DEFAULT_MAX_RESULT_BYTES;

        private Builder() {}

        public Builder workerId(String workerId) {
            this.workerId = Require.notBlank(workerId, "workerId");
            return this;
        }

        public Builder queues(Set<String> queues) {
            Require.notNull(queues, "queues");
            this.queues.clear();
            queues.forEach(q -> this.queues.add(Require.notBlank(q, "queue name")));
            return this;
        }

        public Builder queues(String... queues) {
            return queues(Set.of(queues));
        }

        public Builder concurrency(int concurrency) {
            this.concurrency = Require.positive(concurrency, "concurrency");
            return this;
        }

        public Builder claimBatchSize(int claimBatchSize) {
            this.claimBatchSize = Require.positive(claimBatchSize, "claimBatchSize");
            return this;
        }

        public Builder prefetch(int prefetch) {
            this.prefetch = Require.notNegative(prefetch, "prefetch");
            return this;
        }

        public Builder pollInterval(Duration pollInterval) {
            this.pollInterval = Require.positive(pollInterval, "pollInterval");
            return this;
        }

        /** Wake on {@code LISTEN/NOTIFY} (one connection per engine) as well as polling. */
        public Builder listenNotify(boolean listenNotify) {
            this.listenNotify = listenNotify;
            return this;
        }

        /** See {@link PostboxConfig#notifyInterval()}. */
        public Builder notifyInterval(Duration notifyInterval) {
            this.notifyInterval = Require.positive(notifyInterval, "notifyInterval");
            return this;
        }

        public Builder visibilityTimeout(Duration visibilityTimeout) {
            this.visibilityTimeout = Require.positive(visibilityTimeout, "visibilityTimeout");
            return this;
        }

        public Builder heartbeatInterval(Duration heartbeatInterval) {
            this.heartbeatInterval = Require.positive(heartbeatInterval, "heartbeatInterval");
            return this;
        }

        public Builder rescueInterval(Duration rescueInterval) {
            this.rescueInterval = Require.positive(rescueInterval, "rescueInterval");
            return this;
        }

        /** See {@link PostboxConfig#startMarkInterval()}. */
        public Builder startMarkInterval(Duration startMarkInterval) {
            this.startMarkInterval = Require.positive(startMarkInterval, "startMarkInterval");
            return this;
        }

        public Builder completionBatchSize(int completionBatchSize) {
            this.completionBatchSize = Require.positive(completionBatchSize, "completionBatchSize");
            return this;
        }

        public Builder completionFlushInterval(Duration completionFlushInterval) {
            this.completionFlushInterval = Require.positive(completionFlushInterval, "completionFlushInterval");
            return this;
        }

        public Builder shutdownGrace(Duration shutdownGrace) {
            this.shutdownGrace = Require.notNegative(shutdownGrace, "shutdownGrace");
            return this;
        }

        public Builder unknownKindDelay(Duration unknownKindDelay) {
            this.unknownKindDelay = Require.positive(unknownKindDelay, "unknownKindDelay");
            return this;
        }

        public Builder retryPolicy(RetryPolicy retryPolicy) {
            this.retryPolicy = Require.notNull(retryPolicy, "retryPolicy");
            return this;
        }

        public Builder attemptLog(AttemptLogLevel attemptLog) {
            this.attemptLog = Require.notNull(attemptLog, "attemptLog");
            return this;
        }

        public Builder idempotencyWindow(Duration idempotencyWindow) {
            this.idempotencyWindow = Require.positive(idempotencyWindow, "idempotencyWindow");
            return this;
        }

        public Builder maxPayloadBytes(int maxPayloadBytes) {
            this.maxPayloadBytes = Require.positive(maxPayloadBytes, "maxPayloadBytes");
            return this;
        }

        public Builder transactionMode(TransactionMode transactionMode) {
            this.transactionMode = Require.notNull(transactionMode, "transactionMode");
            return this;
        }

        public Builder archiveRetention(Duration archiveRetention) {
            this.archiveRetention = Require.positive(archiveRetention, "archiveRetention");
            return this;
        }

        public Builder partitionsAhead(int partitionsAhead) {
            this.partitionsAhead = Require.positive(partitionsAhead, "partitionsAhead");
            return this;
        }

        public Builder maintenanceInterval(Duration maintenanceInterval) {
            this.maintenanceInterval = Require.positive(maintenanceInterval, "maintenanceInterval");
            return this;
        }

        /** Threads for handlers, e.g. virtual threads on Java 21+; platform daemon threads if unset. */
        public Builder workerThreadFactory(@Nullable ThreadFactory workerThreadFactory) {
            this.workerThreadFactory = workerThreadFactory;
            return this;
        }

        /**
         * Shares of each claim for the priority lanes: high (priority &gt; 0), normal (0), low (&lt; 0).
         * A backlogged lane always gets at least its share; capacity a lane does not use goes to the
         * others, high first. Default 60 / 30 / 10.
         */
        public Builder laneWeights(int high, int normal, int low) {
            Require.notNegative(high, "laneWeights.high");
            Require.notNegative(normal, "laneWeights.normal");
            Require.notNegative(low, "laneWeights.low");
            if (high + normal + low == 0) {
                throw new IllegalArgumentException("laneWeights may not all be zero");
            }
            this.laneWeights = new int[] {high, normal, low};
            return this;
        }

        /** Successful attempts at least this slow are logged at INFO (others at DEBUG). */
        public Builder slowAttemptThreshold(Duration slowAttemptThreshold) {
            this.slowAttemptThreshold = Require.notNegative(slowAttemptThreshold, "slowAttemptThreshold");
            return this;
        }

        /**
         * The time limit of each attempt whose job ({@link JobRequest.Builder#timeLimit}) and kind
         * ({@link HandlerRegistration#timeLimit}) set none; {@code null} (the default): no limit. An
         * attempt that runs past its limit is given up: its lease is no longer extended, its thread
         * interrupted, a transactional handler's connection closed (its transaction rolls back), and
         * the attempt is charged and logged {@code timed_out}, then retried or dead-lettered.
         */
        public Builder attemptTimeLimit(@Nullable Duration attemptTimeLimit) {
            this.attemptTimeLimit =
                    attemptTimeLimit == null ? null : Require.positive(attemptTimeLimit, "attemptTimeLimit");
            return this;
        }

        /**
         * How many handler threads stuck in given-up attempts (they ignored the interrupt) this
         * process replaces before it stops replacing them and reports itself unhealthy; default:
         * the concurrency. 0: never replace one, unhealthy at the first.
         */
        public Builder stuckThreadLimit(int stuckThreadLimit) {
            this.stuckThreadLimit = Require.notNegative(stuckThreadLimit, "stuckThreadLimit");
            return this;
        }

        /**
         * Largest result a handler may return with its job, in bytes of JSON (default {@value
         * PostboxConfig#DEFAULT_MAX_RESULT_BYTES}); a larger one dead-letters the job, naming the cap.
         */
        public Builder maxResultBytes(int maxResultBytes) {
            this.maxResultBytes = Require.positive(maxResultBytes, "maxResultBytes");
            return this;
        }

        /** Caps the jobs of one queue that this process holds at once (claimed jobs count). */
        public Builder queueConcurrency(String queue, int max) {
            queueConcurrency.put(Require.notBlank(queue, "queue"), Require.positive(max, "queueConcurrency." + queue));
            return this;
        }

        /**
         * Most tenants with work one claim visits (default {@value PostboxConfig#DEFAULT_TENANTS_PER_CLAIM}):
         * each claim gives every tenant it visits a share; with more tenants than this, the next claim
         * continues where this one stopped (round robin).
         */
        public Builder tenantsPerClaim(int tenantsPerClaim) {
            this.tenantsPerClaim = Require.positive(tenantsPerClaim, "tenantsPerClaim");
            return this;
        }

        /**
         * Caps the jobs of every tenant that this process holds at once (claimed jobs count); a tenant
         * at its cap waits (its jobs stay unclaimed) while other tenants' jobs keep flowing.
         */
        public Builder tenantConcurrency(int max) {
            this.tenantConcurrency = Require.positive(max, "tenantConcurrency");
            return this;
        }

        /**
         * Caps the jobs of one tenant ({@code null}: the default tenant) that this process holds at
         * once, instead of {@link #tenantConcurrency(int)}.
         */
        public Builder tenantConcurrency(@Nullable String tenant, int max) {
            String key = tenant == null ? "" : TenantId.validate(tenant, "tenantConcurrency tenant");
            tenantConcurrencyOverrides.put(key, Require.positive(max, "tenantConcurrency." + key));
            return this;
        }

        public PostboxConfig build() {
            return new PostboxConfig(this);
        }
    }
}
