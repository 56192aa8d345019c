package dev.postbox.cron;

import dev.postbox.EnqueueResult;
import dev.postbox.JobRequest;
import dev.postbox.Outbox;
import dev.postbox.cron.internal.ScheduleStore;
import dev.postbox.cron.internal.ScheduleStore.DueSchedule;
import dev.postbox.internal.NegativeControls;
import dev.postbox.internal.Transactions;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns due schedule fires into jobs. One maintenance service; run it on every node, no leader.
 *
 * <p>Each pass is one transaction:
 *
 * <ol>
 *   <li>read the <em>database</em> clock ({@code now()}), never the JVM's;
 *   <li>lock the unpaused schedules with {@code next_fire_at <= now} {@code FOR UPDATE SKIP LOCKED}
 *       (a schedule another node is materialising is skipped, not waited for);
 *   <li>plan the fires with {@link MissedFirePlanner} (DST and missed-fire policies);
 *   <li>enqueue each fire through {@link Outbox} as an ordinary job of the schedule's kind and queue,
 *       with {@code run_at} = the fire instant and the {@link FireKey} as idempotency key and fire
 *       key;
 *   <li>store the next fire in {@code next_fire_at}; commit.
 * </ol>
 *
 * Exactly once per fire follows from two independent guards: the row lock plus the advanced {@code
 * next_fire_at} mean a fire is planned by one transaction only, and should two ever plan the same
 * fire (for example after a definition was re-registered), the fire key's idempotency entry
 * collapses them into one job. A node whose clock is ahead reads the same database clock as the
 * others; if the database itself is reached through a skewed clock (tests inject that with {@link
 * Builder#clockOffset(Supplier)}), a node ahead materialises a fire early, but its job still runs at
 * the fire instant.
 *
 * <p>A schedule whose fires fail to enqueue (for example a payload over the size limit) is rolled
 * back to a savepoint and logged; the other schedules of the pass proceed, and it is retried in the
 * next pass.
 *
 * <p>A {@link FireListener} ({@link Builder#listener(FireListener)}) is told about every job a pass
 * created, after the pass committed: for metrics of fires and lag.
 */
public final class ScheduleMaterializer implements AutoCloseable {

    /**
     * Told about each fire turned into a new job, after the pass's transaction committed; called on
     * the materialiser's thread, so it must be quick and must not throw (exceptions are logged).
     */
    @FunctionalInterface
    public interface FireListener {
        /**
         * A fire became a job.
         *
         * @param scheduleName the schedule
         * @param fireAt the fire instant (the job's run time)
         * @param materializedAt the pass's database time (clock offset included); {@code
         *     materializedAt - fireAt} is the materialisation lag
         * @param jobId the job created
         */
        void fired(String scheduleName, Instant fireAt, Instant materializedAt, long jobId);
    }

    private record Fired(String scheduleName, Instant fireAt, Instant materializedAt, long jobId) {}

    /** Default time between passes. */
    public static final Duration DEFAULT_POLL_INTERVAL = Duration.ofSeconds(1);
    /** Default number of schedules locked per pass. */
    public static final int DEFAULT_BATCH_SIZE = 50;

    private static final Logger log = LoggerFactory.getLogger(ScheduleMaterializer.class);

    private final DataSource dataSource;
    private final Outbox outbox;
    private final Duration pollInterval;
    private final int batchSize;
    private final int maxFiresPerPass;
    private final Supplier<Duration> clockOffset;
    private final FireListener listener;
    private final ScheduleStore store = new ScheduleStore();
    private @Nullable ScheduledExecutorService executor;

    private ScheduleMaterializer(Builder b) {
        this.dataSource = b.dataSource;
        this.outbox = b.outbox;
        this.pollInterval = b.pollInterval;
        this.batchSize = b.batchSize;
        this.maxFiresPerPass = b.maxFiresPerPass;
        this.clockOffset = b.clockOffset;
        this.listener = b.listener;
    }

    /** Starts a builder; {@code outbox} writes the jobs. */
    public static Builder builder(DataSource dataSource, Outbox outbox) {
        return new Builder(dataSource, outbox);
    }

    /** Starts passes every poll interval on a daemon thread; does nothing if already started. */
    public synchronized void start() {
        if (executor != null) {
            return;
        }
        executor = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "postbox-schedule-materializer");
            t.setDaemon(true);
            return t;
        });
        executor.scheduleWithFixedDelay(this::runSafely, 0, pollInterval.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Stops the passes, letting a running one finish. */
    public synchronized void stop() {
        if (executor == null) {
            return;
        }
        executor.shutdown();
        try {
            executor.awaitTermination(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        executor = null;
    }

    @Override
    public void close() {
        stop();
    }

    private void runSafely() {
        try {
            materializeAllDue();
        } catch (RuntimeException e) {
            log.warn("Schedule materialiser pass failed; retrying in {}", pollInterval, e);
        }
    }

    /** Runs passes until one finds fewer due schedules than the batch size. */
    public MaterializeResult materializeAllDue() {
        MaterializeResult total = new MaterializeResult(0, 0, 0, 0, 0);
        MaterializeResult pass;
        do {
            pass = materializeDue();
            total = total.plus(pass);
        } while (pass.schedules() == batchSize && pass.failedSchedules() < pass.schedules());
        return total;
    }

    /** Runs one pass (one transaction) over at most the batch size of due schedules. */
    public MaterializeResult materializeDue() {
        try {
            List<Fired> fired = new ArrayList<>();
            MaterializeResult result = Transactions.call(dataSource, c -> materializeDue(c, fired));
            notifyFired(fired);
            return result;
        } catch (SQLException e) {
            throw new IllegalStateException("Schedule materialiser pass failed: " + e.getMessage(), e);
        }
    }

    private void notifyFired(List<Fired> fired) {
        for (Fired f : fired) {
            try {
                listener.fired(f.scheduleName(), f.fireAt(), f.materializedAt(), f.jobId());
            } catch (RuntimeException e) {
                log.warn("Schedule fire listener failed for '{}' at {}", f.scheduleName(), f.fireAt(), e);
            }
        }
    }

    private MaterializeResult materializeDue(Connection c, List<Fired> fired) throws SQLException {
        Instant now = store.databaseNow(c, clockOffset.get());
        List<DueSchedule> due = store.lockDue(c, now, batchSize);
        MaterializeResult total = new MaterializeResult(due.size(), 0, 0, 0, 0);
        for (DueSchedule schedule : due) {
            Savepoint savepoint = c.setSavepoint();
            List<Fired> scheduleFired = new ArrayList<>();
            try {
                total = total.plus(materialize(c, schedule, now, scheduleFired));
                c.releaseSavepoint(savepoint);
                fired.addAll(scheduleFired);
            } catch (SQLException | RuntimeException e) {
                c.rollback(savepoint);
                total = total.plus(new MaterializeResult(0, 0, 0, 0, 1));
                log.error(
                        "Schedule '{}': materialising fires due at {} failed; retrying next pass",
                        schedule.name(),
                        schedule.nextFireAt(),
                        e);
            }
        }
        return total;
    }

    private MaterializeResult materialize(Connection c, DueSchedule schedule, Instant now, List<Fired> fired)
            throws SQLException {
        ScheduleDefinition definition = schedule.definition();
        FirePlan plan = MissedFirePlanner.forDefinition(definition, maxFiresPerPass)
                .planFromStoredNextFire(schedule.nextFireAt(), now);
        if (plan.missedFiresDropped()) {
            log.info(
                    "Schedule '{}': fires missed since {} handled by missed-fire policy {}",
                    definition.name(),
                    schedule.nextFireAt(),
                    definition.missedFirePolicy());
        }
        Long lastJobId = schedule.lastJobId();
        Instant lastFire = null;
        int created = 0;
        int deduplicated = 0;
        int skipped = 0;
        for (Instant fire : plan.fires()) {
            if (definition.overlapPolicy() == OverlapPolicy.SKIP_IF_RUNNING
                    && lastJobId != null
                    && store.jobUnfinished(c, lastJobId)) {
                skipped++;
                log.info(
                        "Schedule '{}': fire {} skipped, job {} of an earlier fire is unfinished",
                        definition.name(),
                        fire,
                        lastJobId);
                continue;
            }
            // The negative control drops the fire key, the second guard of exactly once per fire.
            @Nullable String fireKey = NegativeControls.CRON_WITHOUT_FIRE_KEY ? null : definition.fireKey(fire);
            EnqueueResult result = outbox.enqueue(
                    c,
                    JobRequest.builder(definition.kind())
                            .queue(definition.queue())
                            .rawJson(definition.payloadFor(fire))
                            .idempotencyKey(fireKey)
                            .fireKey(fireKey)
                            .runAt(fire)
                            .tenant(definition.tenant().orElse(null))
                            .build());
            if (result.created()) {
                created++;
                fired.add(new Fired(definition.name(), fire, now, result.jobId()));
            } else {
                deduplicated++;
            }
            lastJobId = result.jobId();
            lastFire = fire;
        }
        store.advance(c, definition.name(), plan.nextFireAt(), lastFire, lastFire == null ? null : lastJobId);
        return new MaterializeResult(0, created, deduplicated, skipped, 0);
    }

    /** Builds a {@link ScheduleMaterializer}; each setter validates its argument. */
    public static final class Builder {
        private final DataSource dataSource;
        private final Outbox outbox;
        private Duration pollInterval = DEFAULT_POLL_INTERVAL;
        private int batchSize = DEFAULT_BATCH_SIZE;
        private int maxFiresPerPass = MissedFirePlanner.DEFAULT_MAX_FIRES_PER_PASS;
        private Supplier<Duration> clockOffset = () -> Duration.ZERO;
        private FireListener listener = (name, fireAt, materializedAt, jobId) -> {};

        private Builder(DataSource dataSource, Outbox outbox) {
            if (dataSource == null) {
                throw new IllegalArgumentException("dataSource may not be null");
            }
            if (outbox == null) {
                throw new IllegalArgumentException("outbox may not be null");
            }
            this.dataSource = dataSource;
            this.outbox = outbox;
        }

        /** Time between passes; 1 s by default; positive. */
        public Builder pollInterval(Duration pollInterval) {
            if (pollInterval == null || pollInterval.isNegative() || pollInterval.isZero()) {
                throw new IllegalArgumentException("pollInterval must be positive, was " + pollInterval);
            }
            this.pollInterval = pollInterval;
            return this;
        }

        /** Schedules locked per pass; 50 by default; at least 1. */
        public Builder batchSize(int batchSize) {
            if (batchSize < 1) {
                throw new IllegalArgumentException("batchSize must be at least 1, was " + batchSize);
            }
            this.batchSize = batchSize;
            return this;
        }

        /** Fires planned per schedule per pass (see {@link MissedFirePlanner}); 100 by default. */
        public Builder maxFiresPerPass(int maxFiresPerPass) {
            if (maxFiresPerPass < 1) {
                throw new IllegalArgumentException("maxFiresPerPass must be at least 1, was " + maxFiresPerPass);
            }
            this.maxFiresPerPass = maxFiresPerPass;
            return this;
        }

        /**
         * An offset added to the database clock on every pass: zero in production. Tests use it to
         * simulate skewed nodes and to move time forward without waiting.
         */
        public Builder clockOffset(Supplier<Duration> clockOffset) {
            if (clockOffset == null) {
                throw new IllegalArgumentException("clockOffset may not be null");
            }
            this.clockOffset = clockOffset;
            return this;
        }

        /** Told about every fire that became a job, after its pass committed; none by default. */
        public Builder listener(FireListener listener) {
            if (listener == null) {
                throw new IllegalArgumentException("listener may not be null");
            }
            this.listener = listener;
            return this;
        }

        /** Builds the materialiser (not started). */
        public ScheduleMaterializer build() {
            return new ScheduleMaterializer(this);
        }
    }
}
