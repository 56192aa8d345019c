package dev.postbox.chaos.incident;

import dev.postbox.chaos.fleet.WorkerLogs;
import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import javax.sql.DataSource;
import org.postgresql.PGConnection;

/**
 * What a finished incident run shows: the poison job's attempts and where it ended, the herd's
 * effects (each exactly once), the bystanders' charged attempts against the handler starts the
 * workers printed, the flaky jobs' jittered retries, the SLO signal, and the per-attempt log lines.
 */
final class IncidentAnalysis {

    private final IncidentConfig config;
    private final DataSource ds;
    private final IncidentTimeline timeline;
    private final Path logDir;

    IncidentAnalysis(IncidentConfig config, DataSource ds, IncidentTimeline timeline, Path logDir) {
        this.config = config;
        this.ds = ds;
        this.timeline = timeline;
        this.logDir = logDir;
    }

    void analyse(Instant jumpDb, long poisonId, List<Long> herdIds, List<Long> flakyIds, Map<String, Object> values)
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
                        timeline.eventAt(
                                rs.getLong(5),
                                rs.getString(2),
                                "poison attempt " + rs.getInt(1) + " claimed; the worker halts");
                        timeline.eventAt(
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
                        timeline.eventAt(
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
            bystanders(c, poisonId, values);
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
        Map<String, Object> lines = attemptLogLines();
        values.put("poisonHaltLines", lines.remove("poisonHaltLines"));
        values.put("attemptLog", lines);
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
        Collections.sort(delays);
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
        timeline.eventAt(failed.min, "flaky", "first of " + n + " flaky jobs fails its attempt 1 (downstream down)");
        timeline.eventAt(failed.max, "flaky", "last flaky first-attempt failure");
        timeline.eventAt(due.min, "flaky", "first flaky retry due (full jitter, base = cap = " + fixed + " ms)");
        timeline.eventAt(due.max, "flaky", "last flaky retry due");
        timeline.eventAt(started.max, "flaky", "last flaky retry started");
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
        List<IncidentTimeline.Sample> samples = timeline.samples();
        long threshold = config.sloThreshold().toMillis();
        long peak = 0;
        long peakAt = 0;
        long firstBreach = -1;
        long lastBreach = -1;
        long peakDue = 0;
        long peakDueAt = 0;
        for (IncidentTimeline.Sample s : samples) {
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
            for (IncidentTimeline.Sample s : samples) {
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
            timeline.eventAt(firstBreach, "sampler", "postbox.queue.oldest.age crosses " + threshold / 1000 + " s");
        }
        timeline.eventAt(peakAt, "sampler", "postbox.queue.oldest.age peaks at " + peak + " ms");
        if (recoveredAt > 0) {
            timeline.eventAt(
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

    /**
     * The bystanders (every job but the poison): attempts the engine charged beyond the handler
     * starts the workers printed ({@code START} markers), and the largest number of starts of one.
     */
    private void bystanders(Connection c, long poisonId, Map<String, Object> values) throws SQLException, IOException {
        try (Statement s = c.createStatement()) {
            s.execute("CREATE TEMP TABLE incident_start (job_id bigint PRIMARY KEY, starts int NOT NULL)");
        }
        StringBuilder rows = new StringBuilder();
        for (long[] jobStarts : WorkerLogs.read(logDir).startsPerJob()) {
            rows.append(jobStarts[0]).append('\t').append(jobStarts[1]).append('\n');
        }
        c.unwrap(PGConnection.class)
                .getCopyAPI()
                .copyIn("COPY incident_start (job_id, starts) FROM STDIN", new StringReader(rows.toString()));
        String bystanders = "SELECT a.id, a.attempts, coalesce(s.starts, 0) AS starts FROM (SELECT id, attempts"
                + " FROM outbox_job_archive UNION ALL SELECT id, attempts FROM outbox_dead_letter) a"
                + " LEFT JOIN incident_start s ON s.job_id = a.id WHERE a.id <> " + poisonId;
        values.put(
                "bystanderAttemptsChargedWithoutStart",
                scalar(c, "SELECT coalesce(sum(greatest(0, attempts - starts)), 0) FROM (" + bystanders + ") b"));
        values.put(
                "bystandersChargedWithoutStart",
                scalar(c, "SELECT count(*) FROM (" + bystanders + ") b WHERE attempts > starts"));
        values.put(
                "bystanderDeadLetters", scalar(c, "SELECT count(*) FROM outbox_dead_letter WHERE id <> " + poisonId));
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
}
