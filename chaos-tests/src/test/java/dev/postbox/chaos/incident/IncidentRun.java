package dev.postbox.chaos.incident;

import com.zaxxer.hikari.HikariDataSource;
import dev.postbox.EnqueueResult;
import dev.postbox.JobRequest;
import dev.postbox.Postbox;
import dev.postbox.SchemaInstaller;
import dev.postbox.chaos.fleet.Incarnation;
import dev.postbox.chaos.fleet.RunDatabase;
import dev.postbox.chaos.fleet.WorkerFleet;
import dev.postbox.chaos.fleet.WorkerJvm;
import dev.postbox.testing.TestDatabase;
import java.nio.file.Path;
import java.sql.Connection;
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
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the poison-pill incident once: a fresh database, K {@link IncidentWorkerMain} processes
 * (supervised by a {@link WorkerFleet}: restarted when they die), a herd of jobs made due at one
 * instant by a clock jump together with one poison job that halts its worker on every attempt, and
 * a sampler that records what an on-call engineer would see every 500 ms.
 *
 * <p>Time zero of every offset is the clock jump (the commit of {@code UPDATE outbox_job SET run_at
 * = now()}); database timestamps are taken relative to that statement's {@code now()}.
 */
final class IncidentRun {

    private static final Logger log = LoggerFactory.getLogger(IncidentRun.class);
    static final int FLAKY_PRIORITY = 10;

    /** Everything one run produced: its samples, events and measured values. */
    record Result(
            IncidentConfig config,
            List<IncidentTimeline.Sample> samples,
            List<IncidentTimeline.Event> events,
            Map<String, Object> values) {
        long count(String key) {
            Object v = values.get(key);
            return v instanceof Number n ? n.longValue() : -1;
        }
    }

    private final IncidentConfig config;
    private final IncidentTimeline timeline = new IncidentTimeline();
    private final AtomicInteger poisonCrashes = new AtomicInteger();
    private final AtomicInteger otherExits = new AtomicInteger();

    IncidentRun(IncidentConfig config) {
        this.config = config;
    }

    Result run() throws Exception {
        log.info(
                "Poison-pill incident '{}' seed {} (replay with -Dincident.seed={})",
                config.name(),
                config.seed(),
                config.seed());
        long startNanos = System.nanoTime();
        Path logDir = config.reportDir().resolve("incident-" + config.name() + "-workers");
        Map<String, Object> values = new LinkedHashMap<>();
        try (RunDatabase db = RunDatabase.create(TestDatabase.adminUrl(), "incident_" + config.name());
                HikariDataSource ds = db.pool("incident-driver", 4)) {
            new SchemaInstaller(ds).install();
            installObservations(ds);
            Postbox postbox = Postbox.builder(ds).build(); // outbox and admin only, never started
            WorkerJvm jvm = WorkerJvm.forTestClasses(config.reportDir());
            try (WorkerFleet fleet = WorkerFleet.start(
                    "incident",
                    config.workers(),
                    logDir,
                    (slot, incarnation) -> jvm.command(
                            "incident-logback.xml",
                            workerProperties(db, incarnation.workerId()),
                            IncidentWorkerMain.class.getName()),
                    new Listener())) {
                if (!fleet.awaitAllReady(Duration.ofSeconds(60))) {
                    throw new IllegalStateException("incident workers did not start within 60 s: see " + logDir);
                }
                timeline.event("driver", config.workers() + " workers ready");
                Jobs jobs = enqueue(postbox, ds);
                IncidentSampler sampler = new IncidentSampler(
                        config, ds, postbox.admin(), jobs.poisonId, fleet, poisonCrashes::get, timeline);
                Thread samplerThread = new Thread(sampler, "incident-sampler");
                samplerThread.setDaemon(true);
                samplerThread.start();
                Thread.sleep(1_200); // a baseline of samples: everything scheduled, nothing due
                Instant jumpDb = jump(ds);
                Map<String, Object> progress = awaitDrained(ds, jobs.poisonId);
                long liveAtEnd = liveJobs(ds, -1);
                sampler.stop();
                samplerThread.join(5_000);
                fleet.close();
                timeline.event("driver", "workers stopped");

                values.put("name", config.name());
                values.put("description", config.description());
                values.put("seed", config.seed());
                values.put("workers", config.workers());
                values.put("concurrencyPerWorker", config.concurrency());
                values.put("claimBatchSize", config.claimBatchSize());
                values.put("prefetch", config.prefetch());
                values.put("herdJobs", jobs.herdIds.size());
                values.put("flakyJobs", jobs.flakyIds.size());
                values.put("poisonJobId", jobs.poisonId);
                values.put("poisonBudget", config.poisonBudget());
                values.put("visibilityTimeoutMs", config.visibilityTimeout().toMillis());
                values.put("sloThresholdMs", config.sloThreshold().toMillis());
                values.putAll(progress);
                values.put("liveJobsAtEnd", liveAtEnd);
                values.put("runSeconds", Math.round((System.nanoTime() - startNanos) / 1e8) / 10.0);
                values.put("workerCrashesPoison", poisonCrashes.get());
                values.put("workerExitsOther", otherExits.get());
                new IncidentAnalysis(config, ds, timeline, logDir)
                        .analyse(jumpDb, jobs.poisonId, jobs.herdIds, jobs.flakyIds, values);
            }
        }
        return new Result(config, timeline.samples(), timeline.events(), values);
    }

    private Map<String, String> workerProperties(RunDatabase db, String workerId) {
        Map<String, String> p = new LinkedHashMap<>();
        p.put("incident.jdbcUrl", db.url(workerId));
        p.put("incident.workerId", workerId);
        p.put("incident.visibilityMs", Long.toString(config.visibilityTimeout().toMillis()));
        p.put("incident.concurrency", Integer.toString(config.concurrency()));
        p.put("incident.claimBatchSize", Integer.toString(config.claimBatchSize()));
        p.put("incident.prefetch", Integer.toString(config.prefetch()));
        if (config.chargeAtClaim()) {
            p.put("postbox.control.chargeAtClaim", "true");
        }
        return p;
    }

    private static void installObservations(HikariDataSource ds) throws SQLException {
        try (Connection c = ds.getConnection();
                Statement s = c.createStatement()) {
            // Effects keyed by job id: a second application bumps the counter instead of hiding.
            s.execute("CREATE TABLE incident_effect (job_id bigint PRIMARY KEY, kind text NOT NULL,"
                    + " attempt int NOT NULL, worker text NOT NULL, applications int NOT NULL DEFAULT 1,"
                    + " first_at timestamptz NOT NULL DEFAULT clock_timestamp(), last_at timestamptz)");
            // Observation only: every running -> retry transition after a handler failure (not a
            // rescued lease) with the run_at it was given (the jittered due time of the retry, which
            // the archive does not keep). A refunded lease (its attempt never started: attempts - 1,
            // run_at and last_error kept) is not a failure: counted, it doubled a retry in its bucket.
            s.execute("CREATE TABLE incident_retry (job_id bigint NOT NULL, kind text NOT NULL,"
                    + " attempts int NOT NULL, failed_at timestamptz NOT NULL, run_at timestamptz NOT NULL)");
            s.execute("CREATE FUNCTION incident_retry_log() RETURNS trigger LANGUAGE plpgsql AS $$"
                    + " BEGIN INSERT INTO incident_retry VALUES (NEW.id, NEW.kind, NEW.attempts,"
                    + " clock_timestamp(), NEW.run_at); RETURN NULL; END; $$");
            s.execute("CREATE TRIGGER incident_retry_log AFTER UPDATE OF state ON outbox_job FOR EACH ROW"
                    + " WHEN (OLD.state = 'running' AND NEW.state = 'retry' AND NEW.attempts = OLD.attempts"
                    + "   AND NEW.last_error NOT LIKE 'lease expired%') EXECUTE FUNCTION incident_retry_log()");
        }
    }

    /** The incident's jobs, by kind. */
    private record Jobs(long poisonId, List<Long> herdIds, List<Long> flakyIds) {}

    /** The poison job, the herd and the flaky batch, all due in an hour, so none runs before the jump. */
    private Jobs enqueue(Postbox postbox, HikariDataSource ds) throws SQLException {
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
        List<Boolean> flaky = new ArrayList<>();
        for (int i = 0; i < total; i++) {
            // Flaky jobs interleaved at random with the herd (seeded).
            boolean isFlaky = random.nextInt(total - i) < flakyLeft;
            if (isFlaky) {
                flakyLeft--;
            }
            flaky.add(isFlaky);
            requests.add(JobRequest.builder(isFlaky ? IncidentWorkerMain.FLAKY : IncidentWorkerMain.HERD)
                    .payload(Map.of("i", i, "workMs", random.nextInt(config.maxWorkMillis() + 1)))
                    // The flaky batch is high priority (say, payment confirmations): its lane gets its
                    // share of every claim, so the batch runs - and fails - together.
                    .priority(isFlaky ? FLAKY_PRIORITY : 0)
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
        Jobs jobs = new Jobs(enqueued.get(0).jobId(), new ArrayList<>(), new ArrayList<>());
        for (int i = 0; i < total; i++) {
            (flaky.get(i) ? jobs.flakyIds : jobs.herdIds)
                    .add(enqueued.get(i + 1).jobId());
        }
        timeline.event(
                "driver",
                "enqueued " + jobs.herdIds.size() + " herd + " + jobs.flakyIds.size() + " flaky + 1 poison (job "
                        + jobs.poisonId + ", budget " + config.poisonBudget() + "), all with run_at = now() + 1 h");
        return jobs;
    }

    /** The clock jump: every job becomes due at the same instant. Returns the database's now() of the jump. */
    private Instant jump(HikariDataSource ds) throws SQLException {
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
            timeline.jumped(System.nanoTime());
        }
        timeline.event(
                "driver", "clock jump: UPDATE outbox_job SET run_at = now() made " + jumped + " jobs due at once");
        return jumpDb;
    }

    /** Until every job is done or dead, at most {@code maxRun} after the jump; when the herd and the queue drained. */
    private Map<String, Object> awaitDrained(HikariDataSource ds, long poisonId)
            throws SQLException, InterruptedException {
        long deadline = timeline.jumpNanos() + config.maxRun().toNanos();
        boolean drained = false;
        long drainedAt = -1;
        long herdDrainedAt = -1;
        int crashesAtHerdDrained = -1;
        while (System.nanoTime() < deadline) {
            if (herdDrainedAt < 0 && liveJobs(ds, poisonId) == 0) {
                herdDrainedAt = timeline.ms(System.nanoTime());
                crashesAtHerdDrained = poisonCrashes.get();
                timeline.event("driver", "herd drained: no live job left but the poison");
            }
            if (liveJobs(ds, -1) == 0) {
                drained = true;
                drainedAt = timeline.ms(System.nanoTime());
                timeline.event("driver", "outbox_job empty: every job done or dead-lettered");
                break;
            }
            Thread.sleep(250);
        }
        if (drained) {
            Thread.sleep(1_000); // a tail of quiet samples
        } else {
            timeline.event("driver", "deadline passed before the queue drained");
        }
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("drained", drained);
        m.put("drainedAtMs", drainedAt);
        m.put("herdDrainedAtMs", herdDrainedAt);
        m.put("workerCrashesAfterHerdDrained", herdDrainedAt < 0 ? null : poisonCrashes.get() - crashesAtHerdDrained);
        return m;
    }

    /** Live jobs other than {@code exceptId} (-1: all). */
    private static long liveJobs(HikariDataSource ds, long exceptId) throws SQLException {
        try (Connection c = ds.getConnection();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT count(*) FROM outbox_job WHERE id <> " + exceptId)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** Counts the poison's crashes and any other exit; keeps the restarts in the timeline. */
    private final class Listener implements WorkerFleet.Listener {
        @Override
        public void started(Incarnation i) {
            if (i.number() > 1) {
                timeline.event(i.slot().name(), "restarted as " + i.workerId() + " (pid " + i.pid() + ")");
            }
        }

        @Override
        public void ready(Incarnation i) {
            if (i.number() > 1) {
                timeline.event(i.slot().name(), i.workerId() + " ready after " + i.readyAfterMillis() + " ms");
            }
        }

        @Override
        public void exited(Incarnation i, int status) {
            if (status == IncidentWorkerMain.POISON_EXIT) {
                int n = poisonCrashes.incrementAndGet();
                timeline.event(
                        i.slot().name(), "worker crashed (exit " + status + ", halted by the poison job); crash #" + n);
            } else {
                otherExits.incrementAndGet();
                timeline.event(i.slot().name(), "worker exited unexpectedly with " + status);
            }
        }
    }
}
