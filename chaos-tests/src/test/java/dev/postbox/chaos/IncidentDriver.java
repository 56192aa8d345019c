package dev.postbox.chaos;

import com.zaxxer.hikari.HikariDataSource;
import dev.postbox.EnqueueResult;
import dev.postbox.JobRequest;
import dev.postbox.Postbox;
import dev.postbox.PostboxAdmin;
import dev.postbox.QueueStats;
import dev.postbox.SchemaInstaller;
import dev.postbox.testing.TestDatabase;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the poison-pill incident once: a fresh database, K {@link IncidentWorkerMain} processes
 * (restarted when they die, as a supervisor would), a herd of jobs made due at one instant by a
 * clock jump together with one poison job that halts its worker on every attempt, and a sampler
 * that records what an on-call engineer would see every 500 ms.
 *
 * <p>Time zero of every offset is the clock jump (the commit of {@code UPDATE outbox_job SET run_at
 * = now()}); database timestamps are taken relative to that statement's {@code now()}.
 */
final class IncidentDriver {

    private static final Logger log = LoggerFactory.getLogger(IncidentDriver.class);
    static final int FLAKY_PRIORITY = 10;

    /** One scenario; {@link #fixed} is the engine as shipped, {@link #beforeFix} the comparison. */
    record Config(
            String name,
            String description,
            long seed,
            int workers,
            int concurrency,
            int herdJobs,
            int flakyJobs,
            int poisonBudget,
            int herdBudget,
            int maxWorkMillis,
            Duration visibilityTimeout,
            Duration sloThreshold,
            Duration sloRecoveryLimit,
            Duration poisonDeadLimit,
            /* stop this long after the jump even if not drained; null: run until drained */
            Duration observeWindow,
            Duration maxRun,
            Duration sampleInterval,
            Path reportDir) {

        static Config fixed() {
            return new Config(
                    "fixed",
                    "engine as shipped: only started attempts charged, poison budget 3",
                    Long.getLong("incident.seed", 20_250_801L),
                    Integer.getInteger("incident.workers", 3),
                    Integer.getInteger("incident.concurrency", 8),
                    Integer.getInteger("incident.herd", 5_000),
                    Integer.getInteger("incident.flaky", 500),
                    3,
                    20,
                    Integer.getInteger("incident.maxWorkMs", 20),
                    Duration.ofSeconds(2),
                    Duration.ofSeconds(5),
                    Duration.ofSeconds(60),
                    Duration.ofSeconds(45),
                    null,
                    Duration.ofSeconds(Long.getLong("incident.maxSeconds", 90)),
                    Duration.ofMillis(500),
                    Path.of(System.getProperty("chaos.reportDir", "target")));
        }

        /**
         * The same incident with a budget so large (1000) that the poison never runs out within the
         * window: what an engine that charges attempts only when a handler returns does, since a
         * crash never returns. Observed for a fixed window, then stopped. Smaller herd than {@link
         * #fixed} (CI time): the poison waits behind the herd in its lane, so a big herd only delays
         * the loop.
         */
        static Config beforeFix(Duration window, int herd, int flaky) {
            Config f = fixed();
            return new Config(
                    "before-fix",
                    "comparison: poison budget 1000 (never exhausted in the window), the crash loop of an"
                            + " engine that charges attempts only when the handler returns",
                    f.seed,
                    f.workers,
                    f.concurrency,
                    herd,
                    flaky,
                    1000,
                    f.herdBudget,
                    f.maxWorkMillis,
                    f.visibilityTimeout,
                    f.sloThreshold,
                    f.sloRecoveryLimit,
                    f.poisonDeadLimit,
                    window,
                    window.plusSeconds(30),
                    f.sampleInterval,
                    f.reportDir);
        }
    }

    /** What the sampler saw at one instant (offset from the clock jump). */
    record Sample(
            long tMs,
            long due,
            long scheduled,
            long running,
            long oldestDueAgeMs,
            long dlqDepth,
            long effects,
            int workerCrashes,
            int workersUp,
            String poison) {}

    /** A moment of the timeline, offset from the clock jump. */
    record Event(long tMs, String source, String what) {}

    /** Everything one run produced: its samples, events and measured values. */
    record Run(Config config, List<Sample> samples, List<Event> events, Map<String, Object> values) {
        long count(String key) {
            Object v = values.get(key);
            return v instanceof Number n ? n.longValue() : -1;
        }
    }

    private final Config config;
    private final List<Sample> samples = new ArrayList<>();
    private final List<Event> events = new ArrayList<>();
    private final List<Slot> slots = new ArrayList<>();
    private final AtomicInteger poisonCrashes = new AtomicInteger();
    private final AtomicInteger otherExits = new AtomicInteger();
    private volatile boolean stopping;
    private int crashesAtHerdDrained;
    private volatile long jumpNanos = -1;
    private long startNanos;
    private Path logDir;
    private String dbUrl;

    IncidentDriver(Config config) {
        this.config = config;
    }

    Run run() throws Exception {
        log.info(
                "Poison-pill incident '{}' seed {} (replay with -Dincident.seed={})",
                config.name(),
                config.seed(),
                config.seed());
        startNanos = System.nanoTime();
        String adminUrl = TestDatabase.adminUrl();
        String dbName =
                "incident_" + config.name().replace('-', '_') + "_" + Long.toHexString(System.nanoTime() & 0xffffffL);
        try (Connection c = DriverManager.getConnection(adminUrl);
                Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE " + dbName);
        }
        dbUrl = ChaosDatabases.withDatabase(adminUrl, dbName);
        logDir = config.reportDir().resolve("incident-" + config.name() + "-workers");
        Files.createDirectories(logDir);
        try (Stream<Path> old = Files.list(logDir)) {
            for (Path p : old.toList()) {
                Files.delete(p);
            }
        }
        Map<String, Object> values = new LinkedHashMap<>();
        try (HikariDataSource ds = ChaosDatabases.pool(dbUrl, "incident-driver", 4)) {
            new SchemaInstaller(ds).install();
            try (Connection c = ds.getConnection();
                    Statement s = c.createStatement()) {
                // Effects keyed by job id: a second application bumps the counter instead of hiding.
                s.execute("CREATE TABLE incident_effect (job_id bigint PRIMARY KEY, kind text NOT NULL,"
                        + " attempt int NOT NULL, worker text NOT NULL, applications int NOT NULL DEFAULT 1,"
                        + " first_at timestamptz NOT NULL DEFAULT clock_timestamp(), last_at timestamptz)");
                // Observation only: every running -> retry transition with the run_at it was given
                // (the jittered due time of the retry, which the archive does not keep).
                s.execute("CREATE TABLE incident_retry (job_id bigint NOT NULL, kind text NOT NULL,"
                        + " attempts int NOT NULL, failed_at timestamptz NOT NULL, run_at timestamptz NOT NULL)");
                s.execute("CREATE FUNCTION incident_retry_log() RETURNS trigger LANGUAGE plpgsql AS $$"
                        + " BEGIN INSERT INTO incident_retry VALUES (NEW.id, NEW.kind, NEW.attempts,"
                        + " clock_timestamp(), NEW.run_at); RETURN NULL; END; $$");
                s.execute(
                        "CREATE TRIGGER incident_retry_log AFTER UPDATE OF state ON outbox_job FOR EACH ROW"
                                + " WHEN (OLD.state = 'running' AND NEW.state = 'retry') EXECUTE FUNCTION incident_retry_log()");
            }
            Postbox postbox = Postbox.builder(ds).build(); // outbox and admin only, never started
            PostboxAdmin admin = postbox.admin();

            for (int i = 0; i < config.workers(); i++) {
                Slot slot = new Slot(i + 1);
                slots.add(slot);
                slot.launch();
            }
            Thread monitor = new Thread(this::monitor, "incident-monitor");
            monitor.setDaemon(true);
            monitor.start();
            awaitReady(Duration.ofSeconds(60));

            // The jobs: all due in an hour, so none runs before the jump.
            SplittableRandom random = new SplittableRandom(config.seed());
            Instant later = Instant.now().plus(Duration.ofHours(1));
            List<JobRequest> requests = new ArrayList<>();
            requests.add(JobRequest.builder(IncidentWorkerMain.POISON)
                    .payload(Map.of("note", "halts its worker"))
                    .runAt(later)
                    .maxAttempts(config.poisonBudget())
                    .build());
            int total = config.herdJobs() + config.flakyJobs();
            int flakyLeft = config.flakyJobs();
            List<String> kinds = new ArrayList<>();
            for (int i = 0; i < total; i++) {
                // Flaky jobs interleaved at random with the herd (seeded).
                boolean flaky = random.nextInt(total - i) < flakyLeft;
                if (flaky) {
                    flakyLeft--;
                }
                String kind = flaky ? IncidentWorkerMain.FLAKY : IncidentWorkerMain.HERD;
                kinds.add(kind);
                requests.add(JobRequest.builder(kind)
                        .payload(Map.of("i", i, "workMs", random.nextInt(config.maxWorkMillis() + 1)))
                        // The flaky batch is high priority (say, payment confirmations): its lane
                        // gets its share of every claim, so the batch runs - and fails - together.
                        .priority(flaky ? FLAKY_PRIORITY : 0)
                        .runAt(later)
                        .maxAttempts(config.herdBudget())
                        .build());
            }
            List<EnqueueResult> enqueued;
            try (Connection c = ds.getConnection()) {
                c.setAutoCommit(false);
                enqueued = postbox.outbox().enqueueAll(c, requests);
                c.commit();
            }
            long poisonId = enqueued.get(0).jobId();
            List<Long> herdIds = new ArrayList<>();
            List<Long> flakyIds = new ArrayList<>();
            for (int i = 0; i < total; i++) {
                (kinds.get(i).equals(IncidentWorkerMain.FLAKY) ? flakyIds : herdIds)
                        .add(enqueued.get(i + 1).jobId());
            }
            event(
                    "driver",
                    "enqueued " + herdIds.size() + " herd + " + flakyIds.size() + " flaky + 1 poison (job " + poisonId
                            + ", budget " + config.poisonBudget() + "), all with run_at = now() + 1 h");

            Sampler sampler = new Sampler(ds, admin, poisonId);
            Thread samplerThread = new Thread(sampler, "incident-sampler");
            samplerThread.setDaemon(true);
            samplerThread.start();
            Thread.sleep(1_200); // a baseline: everything scheduled, nothing due

            // The clock jump: every job becomes due at the same instant.
            Instant jumpDb;
            int jumped;
            try (Connection c = ds.getConnection()) {
                c.setAutoCommit(false);
                try (Statement s = c.createStatement();
                        ResultSet rs = s.executeQuery("SELECT now()")) {
                    rs.next();
                    jumpDb = rs.getTimestamp(1).toInstant();
                }
                try (Statement s = c.createStatement()) {
                    jumped = s.executeUpdate("UPDATE outbox_job SET run_at = now()");
                }
                c.commit();
                jumpNanos = System.nanoTime();
            }
            event("driver", "clock jump: UPDATE outbox_job SET run_at = now() made " + jumped + " jobs due at once");

            long deadline = jumpNanos + config.maxRun().toNanos();
            long windowEnd = config.observeWindow() == null
                    ? -1
                    : jumpNanos + config.observeWindow().toNanos();
            boolean drained = false;
            long drainedAt = -1;
            long herdDrainedAt = -1;
            while (System.nanoTime() < deadline) {
                if (herdDrainedAt < 0 && liveJobsOtherThan(ds, poisonId) == 0) {
                    herdDrainedAt = ms(System.nanoTime());
                    crashesAtHerdDrained = poisonCrashes.get();
                    event("driver", "herd drained: no live job left but the poison");
                }
                if (windowEnd > 0 && System.nanoTime() >= windowEnd) {
                    break;
                }
                if (windowEnd < 0 && liveJobs(ds) == 0) {
                    drained = true;
                    drainedAt = ms(System.nanoTime());
                    event("driver", "outbox_job empty: every job done or dead-lettered");
                    break;
                }
                Thread.sleep(250);
            }
            if (windowEnd < 0 && !drained) {
                event("driver", "deadline passed before the queue drained");
            }
            if (drained) {
                Thread.sleep(1_000); // a tail of quiet samples
            }
            long liveAtEnd = liveJobs(ds);
            sampler.stop();
            samplerThread.join(5_000);
            synchronized (samples) {
                List<Sample> raw = new ArrayList<>(samples);
                samples.clear();
                for (Sample x : raw) {
                    samples.add(new Sample(
                            ms(x.tMs()),
                            x.due(),
                            x.scheduled(),
                            x.running(),
                            x.oldestDueAgeMs(),
                            x.dlqDepth(),
                            x.effects(),
                            x.workerCrashes(),
                            x.workersUp(),
                            x.poison()));
                }
            }
            stopping = true;
            monitor.join(2_000);
            stopAll();
            event("driver", "workers stopped");

            values.put("name", config.name());
            values.put("description", config.description());
            values.put("seed", config.seed());
            values.put("workers", config.workers());
            values.put("concurrencyPerWorker", config.concurrency());
            values.put("herdJobs", herdIds.size());
            values.put("flakyJobs", flakyIds.size());
            values.put("poisonJobId", poisonId);
            values.put("poisonBudget", config.poisonBudget());
            values.put("visibilityTimeoutMs", config.visibilityTimeout().toMillis());
            values.put("sloThresholdMs", config.sloThreshold().toMillis());
            values.put(
                    "observeWindowMs",
                    config.observeWindow() == null
                            ? null
                            : config.observeWindow().toMillis());
            values.put("drained", drained);
            values.put("drainedAtMs", drainedAt);
            values.put("herdDrainedAtMs", herdDrainedAt);
            values.put("liveJobsAtEnd", liveAtEnd);
            values.put("runSeconds", Math.round((System.nanoTime() - startNanos) / 1e8) / 10.0);
            values.put("workerCrashesPoison", poisonCrashes.get());
            values.put("workerExitsOther", otherExits.get());
            values.put(
                    "workerCrashesAfterHerdDrained",
                    herdDrainedAt < 0 ? null : poisonCrashes.get() - crashesAtHerdDrained);
            analyse(ds, jumpDb, poisonId, herdIds, flakyIds, values);
        } finally {
            stopping = true;
            stopAll();
            if (!Boolean.getBoolean("incident.keepDatabase")) {
                ChaosDatabases.dropDatabase(adminUrl, dbName);
            }
        }
        return new Run(config, List.copyOf(samples), sortedEvents(), values);
    }

    // ---------------------------------------------------------------- analysis

    private void analyse(
            HikariDataSource ds,
            Instant jumpDb,
            long poisonId,
            List<Long> herdIds,
            List<Long> flakyIds,
            Map<String, Object> values)
            throws SQLException, IOException {
        java.sql.Timestamp jump = java.sql.Timestamp.from(jumpDb);
        try (Connection c = ds.getConnection()) {
            // The poison job: its attempts, as the attempt log recorded them, and where it ended.
            List<Map<String, Object>> poisonAttempts = new ArrayList<>();
            try (PreparedStatement ps = c.prepareStatement("SELECT attempt, worker, outcome, error,"
                    + " (extract(epoch FROM started_at - ?) * 1000)::bigint,"
                    + " (extract(epoch FROM finished_at - ?) * 1000)::bigint"
                    + " FROM outbox_attempt WHERE job_id = ? ORDER BY attempt, finished_at")) {
                ps.setTimestamp(1, jump);
                ps.setTimestamp(2, jump);
                ps.setLong(3, poisonId);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        Map<String, Object> a = new LinkedHashMap<>();
                        a.put("attempt", rs.getInt(1));
                        a.put("worker", rs.getString(2));
                        a.put("outcome", rs.getString(3));
                        a.put("claimedAtMs", rs.getLong(5));
                        a.put("rescuedAtMs", rs.getLong(6));
                        poisonAttempts.add(a);
                        eventAt(
                                rs.getLong(5),
                                rs.getString(2),
                                "poison attempt " + rs.getInt(1) + " claimed; the worker halts");
                        eventAt(
                                rs.getLong(6),
                                "rescuer",
                                "poison lease expired (attempt " + rs.getInt(1) + " of " + config.poisonBudget()
                                        + ") -> " + rs.getString(3));
                    }
                }
            }
            values.put("poisonAttempts", poisonAttempts);
            values.put("poisonAttemptsLogged", poisonAttempts.size());
            try (PreparedStatement ps = c.prepareStatement("SELECT attempts, max_attempts, last_error,"
                    + " (extract(epoch FROM dead_at - ?) * 1000)::bigint FROM outbox_dead_letter WHERE id = ?")) {
                ps.setTimestamp(1, jump);
                ps.setLong(2, poisonId);
                try (ResultSet rs = ps.executeQuery()) {
                    if (rs.next()) {
                        values.put("poisonDeadLettered", true);
                        values.put("poisonDeadAttempts", rs.getInt(1));
                        values.put("poisonDeadMaxAttempts", rs.getInt(2));
                        values.put("poisonDeadLastError", rs.getString(3));
                        values.put("poisonDeadAtMs", rs.getLong(4));
                        eventAt(
                                rs.getLong(4),
                                "rescuer",
                                "poison job dead-lettered: " + rs.getString(3) + " (postbox.dlq.depth 0 -> 1)");
                    } else {
                        values.put("poisonDeadLettered", false);
                        try (PreparedStatement live =
                                c.prepareStatement("SELECT state, attempts FROM outbox_job WHERE id = ?")) {
                            live.setLong(1, poisonId);
                            try (ResultSet lr = live.executeQuery()) {
                                if (lr.next()) {
                                    values.put("poisonStateAtEnd", lr.getString(1));
                                    values.put("poisonAttemptsAtEnd", lr.getInt(2));
                                }
                            }
                        }
                    }
                }
            }
            values.put("deadLetters", scalar(c, "SELECT count(*) FROM outbox_dead_letter"));

            // Effects: every herd and flaky job applied exactly once.
            values.put("herdEffects", effects(c, herdIds));
            values.put("flakyEffects", effects(c, flakyIds));
            values.put("herdLost", herdIds.size() - effects(c, herdIds));
            values.put("flakyLost", flakyIds.size() - effects(c, flakyIds));
            values.put("duplicateEffects", scalar(c, "SELECT count(*) FROM incident_effect WHERE applications > 1"));
            values.put(
                    "extraApplications", scalar(c, "SELECT coalesce(sum(applications - 1), 0) FROM incident_effect"));
            values.put("archivedDone", scalar(c, "SELECT count(*) FROM outbox_job_archive WHERE state = 'done'"));
            values.put(
                    "leaseExpiredAttempts",
                    scalar(c, "SELECT count(*) FROM outbox_attempt WHERE outcome = 'lease_expired'"));
            values.put(
                    "herdJobsStrandedByCrashes",
                    scalar(
                            c,
                            "SELECT count(DISTINCT job_id) FROM outbox_attempt WHERE outcome = 'lease_expired'"
                                    + " AND job_id <> " + poisonId));

            // Flaky jobs that failed their first attempt by exception: when they failed, the due
            // time the engine gave the retry, and when the retry started.
            List<long[]> retries = new ArrayList<>(); // {failedAtMs, dueAtMs, startedAtMs}
            try (PreparedStatement ps = c.prepareStatement("SELECT"
                    + " (extract(epoch FROM a.finished_at - ?) * 1000)::bigint,"
                    + " (extract(epoch FROM r.run_at - ?) * 1000)::bigint,"
                    + " (extract(epoch FROM h.started_at - ?) * 1000)::bigint"
                    + " FROM outbox_attempt a JOIN outbox_job_archive h ON h.id = a.job_id"
                    + " JOIN incident_retry r ON r.job_id = a.job_id AND r.attempts = 1"
                    + " WHERE a.outcome = 'retry' AND a.attempt = 1 AND h.kind = 'flaky' AND h.attempts = 2")) {
                ps.setTimestamp(1, jump);
                ps.setTimestamp(2, jump);
                ps.setTimestamp(3, jump);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        retries.add(new long[] {rs.getLong(1), rs.getLong(2), rs.getLong(3)});
                    }
                }
            }
            jitter(retries, values);
        }
        values.put("attemptLog", attemptLogLines());
        slo(values);
    }

    /**
     * The spread of the flaky jobs' retries: when they failed, when the engine made them due again
     * (full jitter), when they ran; against a fixed backoff (failure + 5 s), computed from the same
     * failure times.
     */
    private void jitter(List<long[]> retries, Map<String, Object> values) {
        int n = retries.size();
        values.put("flakyRetriesMeasured", n);
        if (n == 0) {
            return;
        }
        long fixed = IncidentWorkerMain.FLAKY_BACKOFF.toMillis();
        Spread failed = new Spread();
        Spread due = new Spread();
        Spread started = new Spread();
        Spread fixedDue = new Spread();
        Spread delay = new Spread();
        List<Long> delays = new ArrayList<>();
        for (long[] r : retries) {
            failed.add(r[0]);
            due.add(r[1]);
            started.add(r[2]);
            fixedDue.add(r[0] + fixed);
            delay.add(r[1] - r[0]);
            delays.add(r[1] - r[0]);
        }
        java.util.Collections.sort(delays);
        values.put("flakyFailedWindowMs", failed.window());
        values.put("flakyFailedMaxBucketShare", share(failed.maxBucket(), n));
        values.put("flakyRetryDueWindowMs", due.window());
        values.put("flakyRetryDue100msBuckets", due.buckets.size());
        values.put("flakyRetryDueMaxBucketShare", share(due.maxBucket(), n));
        values.put("flakyRetryStartedWindowMs", started.window());
        values.put("flakyRetryStartedMaxBucketShare", share(started.maxBucket(), n));
        values.put(
                "flakyRetryDelayMsP0P10P50P90P100",
                List.of(
                        delays.get(0),
                        delays.get(n / 10),
                        delays.get(n / 2),
                        delays.get(n * 9 / 10),
                        delays.get(n - 1)));
        values.put("flakyRetryDelay100msBuckets", delay.buckets.size());
        values.put("flakyRetryDelayMaxBucketShare", share(delay.maxBucket(), n));
        // A fixed 5 s backoff from the same failures: every delay in one bucket, and the failure
        // wave replayed 5 s later.
        values.put("fixedBackoffCounterfactualDelayMaxBucketShare", 1.0);
        values.put("fixedBackoffCounterfactualDueMaxBucketShare", share(fixedDue.maxBucket(), n));
        values.put("flakyFailedHistogram100ms", failed.histogram());
        values.put("flakyRetryDueHistogram100ms", due.histogram());
        eventAt(failed.min, "flaky", "first of " + n + " flaky jobs fails its attempt 1 (downstream down)");
        eventAt(failed.max, "flaky", "last flaky first-attempt failure");
        eventAt(due.min, "flaky", "first flaky retry due (full jitter, base = cap = " + fixed + " ms)");
        eventAt(due.max, "flaky", "last flaky retry due");
        eventAt(started.max, "flaky", "last flaky retry started");
    }

    /** Offsets bucketed by 100 ms. */
    private static final class Spread {
        final TreeMap<Long, Integer> buckets = new TreeMap<>();
        long min = Long.MAX_VALUE;
        long max = Long.MIN_VALUE;

        void add(long ms) {
            min = Math.min(min, ms);
            max = Math.max(max, ms);
            buckets.merge(Math.floorDiv(ms, 100), 1, Integer::sum);
        }

        int maxBucket() {
            return buckets.values().stream().mapToInt(Integer::intValue).max().orElse(0);
        }

        List<Long> window() {
            return List.of(min, max);
        }

        Map<String, Integer> histogram() {
            Map<String, Integer> h = new LinkedHashMap<>();
            for (Map.Entry<Long, Integer> e : buckets.entrySet()) {
                h.put(Long.toString(e.getKey() * 100), e.getValue());
            }
            return h;
        }
    }

    /** Peak of the oldest-due age and when it fell below the SLO threshold for good. */
    private void slo(Map<String, Object> values) {
        long threshold = config.sloThreshold().toMillis();
        long peak = 0;
        long peakAt = 0;
        long firstBreach = -1;
        long lastBreach = -1;
        long peakDue = 0;
        long peakDueAt = 0;
        for (Sample s : samples) {
            if (s.tMs() < 0) {
                continue;
            }
            if (s.oldestDueAgeMs() > peak) {
                peak = s.oldestDueAgeMs();
                peakAt = s.tMs();
            }
            if (s.due() > peakDue) {
                peakDue = s.due();
                peakDueAt = s.tMs();
            }
            if (s.oldestDueAgeMs() >= threshold) {
                if (firstBreach < 0) {
                    firstBreach = s.tMs();
                }
                lastBreach = s.tMs();
            }
        }
        long recoveredAt = -1;
        if (lastBreach < 0) {
            recoveredAt = 0;
        } else {
            for (Sample s : samples) {
                if (s.tMs() > lastBreach) {
                    recoveredAt = s.tMs();
                    break;
                }
            }
        }
        values.put("oldestDueAgePeakMs", peak);
        values.put("oldestDueAgePeakAtMs", peakAt);
        values.put("dueCountPeak", peakDue);
        values.put("dueCountPeakAtMs", peakDueAt);
        values.put("sloFirstBreachAtMs", firstBreach);
        values.put("sloLastBreachAtMs", lastBreach);
        values.put("sloRecoveredAtMs", recoveredAt);
        values.put("samples", samples.size());
        if (firstBreach >= 0) {
            eventAt(firstBreach, "sampler", "postbox.queue.oldest.age crosses " + threshold / 1000 + " s");
        }
        eventAt(peakAt, "sampler", "postbox.queue.oldest.age peaks at " + peak + " ms");
        if (recoveredAt > 0) {
            eventAt(
                    recoveredAt,
                    "sampler",
                    "postbox.queue.oldest.age back under " + threshold / 1000 + " s for good (SLO recovered)");
        }
    }

    /** Counts of the per-attempt log lines (logger dev.postbox.attempt) and rescues in the worker logs. */
    private Map<String, Object> attemptLogLines() throws IOException {
        Map<String, Long> outcomes = new TreeMap<>();
        long rescueLines = 0;
        long poisonLines = 0;
        String flakyExample = null;
        String rescueExample = null;
        List<Path> files;
        try (Stream<Path> list = Files.list(logDir)) {
            files = list.filter(p -> p.toString().endsWith(".log")).sorted().toList();
        }
        for (Path f : files) {
            for (String line : Files.readAllLines(f, StandardCharsets.ISO_8859_1)) {
                int o = line.indexOf(" outcome=");
                if (line.contains("dev.postbox.attempt") && o > 0) {
                    String outcome = line.substring(o + 9).split(" ")[0];
                    outcomes.merge(outcome, 1L, Long::sum);
                    if (flakyExample == null && line.contains("kind=flaky")) {
                        flakyExample = line.substring(line.indexOf(" - ") + 3);
                    }
                } else if (line.contains("Rescued expired leases")) {
                    rescueLines++;
                    if (rescueExample == null || line.contains("1 dead-lettered")) {
                        rescueExample = line.substring(line.indexOf(" - ") + 3);
                    }
                } else if (line.startsWith("POISON ")) {
                    poisonLines++;
                }
            }
        }
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("attemptLinesByOutcome", outcomes);
        m.put("rescueLines", rescueLines);
        m.put("poisonHaltLines", poisonLines);
        m.put("exampleFailureLine", flakyExample);
        m.put("exampleRescueLine", rescueExample);
        return m;
    }

    private static long effects(Connection c, List<Long> ids) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT count(*) FROM incident_effect WHERE job_id = ANY (?)")) {
            ps.setArray(1, c.createArrayOf("bigint", ids.toArray()));
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    private static double share(long part, long whole) {
        return whole == 0 ? 0 : Math.round(part * 10_000.0 / whole) / 10_000.0;
    }

    private static long scalar(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static long liveJobsOtherThan(HikariDataSource ds, long id) throws SQLException {
        try (Connection c = ds.getConnection()) {
            return scalar(c, "SELECT count(*) FROM outbox_job WHERE id <> " + id);
        }
    }

    private static long liveJobs(HikariDataSource ds) throws SQLException {
        try (Connection c = ds.getConnection()) {
            return scalar(c, "SELECT count(*) FROM outbox_job");
        }
    }

    // ---------------------------------------------------------------- sampling

    /** Every 500 ms: the queue's stats as PostboxAdmin (and the starter's gauges) report them. */
    private final class Sampler implements Runnable {
        private final HikariDataSource ds;
        private final PostboxAdmin admin;
        private final long poisonId;
        private volatile boolean running = true;

        Sampler(HikariDataSource ds, PostboxAdmin admin, long poisonId) {
            this.ds = ds;
            this.admin = admin;
            this.poisonId = poisonId;
        }

        void stop() {
            running = false;
        }

        @Override
        public void run() {
            long interval = config.sampleInterval().toNanos();
            long next = System.nanoTime();
            while (running) {
                try {
                    sample();
                } catch (Exception e) {
                    log.warn("sample failed", e);
                }
                next += interval;
                long sleep = next - System.nanoTime();
                if (sleep > 0) {
                    try {
                        TimeUnit.NANOSECONDS.sleep(sleep);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }
        }

        private void sample() throws SQLException {
            long t = System.nanoTime();
            QueueStats q = admin.queues().stream()
                    .filter(s -> s.queue().equals("default"))
                    .findFirst()
                    .orElse(new QueueStats("default", 0, 0, 0, Duration.ZERO, 0, false));
            long dlq = admin.deadLetterCount();
            long effects;
            String poison;
            try (Connection c = ds.getConnection()) {
                effects = scalar(c, "SELECT count(*) FROM incident_effect");
                try (PreparedStatement ps = c.prepareStatement("SELECT state, attempts, run_at <= now() FROM outbox_job"
                        + " WHERE id = ? UNION ALL SELECT 'dead', attempts, false FROM outbox_dead_letter"
                        + " WHERE id = ?")) {
                    ps.setLong(1, poisonId);
                    ps.setLong(2, poisonId);
                    try (ResultSet rs = ps.executeQuery()) {
                        if (rs.next()) {
                            String state = rs.getString(1);
                            if (state.equals("pending") && !rs.getBoolean(3)) {
                                state = "scheduled";
                            }
                            poison = state + " " + rs.getInt(2) + "/" + config.poisonBudget();
                        } else {
                            poison = "?";
                        }
                    }
                }
            }
            int up = 0;
            for (Slot s : slots) {
                if (s.ready()) {
                    up++;
                }
            }
            synchronized (samples) {
                samples.add(new Sample(
                        t,
                        q.due(),
                        q.scheduled(),
                        q.running(),
                        q.oldestDueAge().toMillis(),
                        dlq,
                        effects,
                        poisonCrashes.get(),
                        up,
                        poison));
            }
        }
    }

    /** Records a driver event now; offsets are computed once the jump is known. */
    private void event(String source, String what) {
        synchronized (events) {
            events.add(new Event(System.nanoTime(), source, what));
        }
    }

    /** An event at a database-derived offset (ms after the jump). */
    private void eventAt(long msAfterJump, String source, String what) {
        synchronized (events) {
            events.add(new Event(jumpNanos + msAfterJump * 1_000_000, source, what));
        }
    }

    private List<Event> sortedEvents() {
        synchronized (events) {
            List<Event> out = new ArrayList<>();
            for (Event e : events) {
                out.add(new Event(ms(e.tMs()), e.source(), e.what()));
            }
            out.sort((a, b) -> Long.compare(a.tMs(), b.tMs()));
            return out;
        }
    }

    private long ms(long nanos) {
        return Math.floorDiv(nanos - jumpNanos, 1_000_000L);
    }

    // ---------------------------------------------------------------- workers

    private void awaitReady(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (slots.stream().allMatch(Slot::ready)) {
                event("driver", slots.size() + " workers ready");
                return;
            }
            Thread.sleep(50);
        }
        throw new IllegalStateException("workers did not start within " + timeout);
    }

    private void monitor() {
        while (!stopping) {
            for (Slot s : slots) {
                s.check();
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private void stopAll() {
        for (Slot s : slots) {
            s.terminate();
        }
        for (Slot s : slots) {
            s.shutdown();
        }
    }

    /** One worker position, restarted (as a new incarnation) whenever its process dies. */
    private final class Slot {
        private final int index;
        private int incarnation;
        private Process process;
        private Path logFile;
        private boolean ready;
        private long launchedNanos;
        private boolean shutDown;

        Slot(int index) {
            this.index = index;
        }

        String name() {
            return "w" + index;
        }

        synchronized void launch() throws IOException {
            incarnation++;
            String workerId = "incident-w" + index + "-i" + incarnation;
            String java =
                    Path.of(System.getProperty("java.home"), "bin", "java").toString();
            List<String> cmd = List.of(
                    java,
                    "-Xmx128m",
                    "-Xss512k",
                    "-XX:+UseSerialGC",
                    "-XX:TieredStopAtLevel=1",
                    "-XX:-UsePerfData",
                    "-Dlogback.configurationFile=incident-logback.xml",
                    "-Dlogback.statusListenerClass=ch.qos.logback.core.status.NopStatusListener",
                    "-cp",
                    System.getProperty("java.class.path"),
                    "-Dincident.jdbcUrl=" + dbUrl + (dbUrl.contains("?") ? "&" : "?") + "ApplicationName=" + workerId,
                    "-Dincident.workerId=" + workerId,
                    "-Dincident.visibilityMs=" + config.visibilityTimeout().toMillis(),
                    "-Dincident.concurrency=" + config.concurrency(),
                    IncidentWorkerMain.class.getName());
            logFile = logDir.resolve(workerId + ".log");
            ready = false;
            launchedNanos = System.nanoTime();
            process = new ProcessBuilder(cmd)
                    .redirectErrorStream(true)
                    .redirectOutput(logFile.toFile())
                    .start();
            if (incarnation > 1) {
                event(name(), "restarted as " + workerId + " (pid " + process.pid() + ")");
            }
        }

        synchronized boolean ready() {
            if (process == null || !process.isAlive()) {
                return false;
            }
            if (!ready) {
                try {
                    ready = Files.readString(logFile, StandardCharsets.ISO_8859_1)
                            .contains("READY ");
                } catch (IOException e) {
                    return false;
                }
                if (ready && incarnation > 1) {
                    event(
                            name(),
                            "incident-w" + index + "-i" + incarnation + " ready after "
                                    + (System.nanoTime() - launchedNanos) / 1_000_000 + " ms");
                }
            }
            return ready;
        }

        synchronized void check() {
            if (shutDown || process == null || process.isAlive()) {
                return;
            }
            ready();
            int code = process.exitValue();
            if (code == IncidentWorkerMain.POISON_EXIT) {
                int n = poisonCrashes.incrementAndGet();
                event(name(), "worker crashed (exit " + code + ", halted by the poison job); crash #" + n);
            } else {
                otherExits.incrementAndGet();
                event(name(), "worker exited unexpectedly with " + code);
            }
            try {
                launch();
            } catch (IOException e) {
                log.error("restarting {} failed", name(), e);
            }
        }

        /** SIGTERM without waiting, so that all workers stop in parallel. */
        synchronized void terminate() {
            shutDown = true;
            if (process != null) {
                process.destroy();
            }
        }

        synchronized void shutdown() {
            shutDown = true;
            if (process == null) {
                return;
            }
            process.destroy();
            try {
                if (!process.waitFor(10, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                    process.waitFor(5, TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
