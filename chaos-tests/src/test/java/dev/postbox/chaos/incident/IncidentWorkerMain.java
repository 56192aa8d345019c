package dev.postbox.chaos.incident;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.postbox.HandlerRegistration;
import dev.postbox.Job;
import dev.postbox.Postbox;
import dev.postbox.PostboxConfig;
import dev.postbox.RetryPolicy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Map;
import javax.sql.DataSource;
import org.springframework.jdbc.datasource.DataSourceUtils;

/**
 * A worker process of the poison-pill incident scenario ({@link PoisonPillIncidentTest}): a Postbox
 * engine with three handlers.
 *
 * <ul>
 *   <li>{@code herd}: writes its effect in the completion's transaction (a row keyed by job id; a
 *       second application increments {@code applications} instead of hiding), after a short
 *       simulated piece of work.
 *   <li>{@code flaky}: fails its first attempt (a downstream that was briefly down), then succeeds
 *       like {@code herd}. Its retry policy has a wide full-jitter window so the spread is visible.
 *   <li>{@code poison}: kills the whole JVM on every attempt ({@code Runtime.halt}), as a handler
 *       that triggers a native crash, an OOM kill or {@code System.exit} in a library would.
 * </ul>
 *
 * Every handler prints the harness's {@code START <job id> <kind>} marker first. Kept apart from the
 * chaos suite's Spring Boot worker on purpose: the incident needs its own handlers and a plain
 * engine that starts in well under a second.
 */
public final class IncidentWorkerMain {

    static final String HERD = "herd";
    static final String FLAKY = "flaky";
    static final String POISON = "poison";
    /** Exit status of a worker killed by the poison job. */
    static final int POISON_EXIT = 87;
    /** The flaky jobs' backoff: after the first failure the retry waits uniform [0, 5 s]. */
    static final Duration FLAKY_BACKOFF = Duration.ofSeconds(5);

    private IncidentWorkerMain() {}

    public static void main(String[] args) throws Exception {
        String jdbcUrl = required("incident.jdbcUrl");
        String workerId = required("incident.workerId");
        Duration visibility = Duration.ofMillis(Long.getLong("incident.visibilityMs", 2000));
        int concurrency = Integer.getInteger("incident.concurrency", PostboxConfig.DEFAULT_CONCURRENCY);
        int claimBatchSize = Integer.getInteger("incident.claimBatchSize", PostboxConfig.DEFAULT_CLAIM_BATCH_SIZE);
        int prefetch = Integer.getInteger("incident.prefetch", 2 * claimBatchSize);

        HikariConfig hc = new HikariConfig();
        hc.setJdbcUrl(jdbcUrl);
        hc.setPoolName(workerId);
        hc.setMaximumPoolSize(concurrency + 4);
        hc.setMinimumIdle(2);
        hc.setConnectionTimeout(5_000);
        HikariDataSource ds = new HikariDataSource(hc);

        RetryPolicy regular = RetryPolicy.custom()
                .base(Duration.ofMillis(100))
                .cap(Duration.ofSeconds(2))
                .build();
        RetryPolicy flakyPolicy =
                RetryPolicy.custom().base(FLAKY_BACKOFF).cap(FLAKY_BACKOFF).build();

        HandlerRegistration herd = HandlerRegistration.of(HERD, job -> {
                    started(job);
                    effect(ds, job, workerId);
                })
                .transactional()
                .retryPolicy(regular);
        HandlerRegistration flaky = HandlerRegistration.of(FLAKY, job -> {
                    started(job);
                    if (job.attempt() == 1) {
                        throw new IllegalStateException("downstream unavailable (flaky job, first attempt)");
                    }
                    effect(ds, job, workerId);
                })
                .transactional()
                .retryPolicy(flakyPolicy);
        HandlerRegistration poison = HandlerRegistration.of(POISON, job -> {
                    started(job);
                    System.out.println("POISON job=" + job.id() + " attempt=" + job.attempt() + " worker=" + workerId
                            + " halting");
                    System.out.flush();
                    Runtime.getRuntime().halt(POISON_EXIT);
                })
                .retryPolicy(regular);

        Postbox postbox = Postbox.builder(ds)
                .config(PostboxConfig.custom()
                        .workerId(workerId)
                        .concurrency(concurrency)
                        .claimBatchSize(claimBatchSize)
                        .prefetch(prefetch)
                        .pollInterval(Duration.ofMillis(250))
                        .visibilityTimeout(visibility)
                        .heartbeatInterval(Duration.ofMillis(Math.max(100, visibility.toMillis() / 4)))
                        .rescueInterval(Duration.ofMillis(500))
                        .retryPolicy(regular)
                        .shutdownGrace(Duration.ofSeconds(1))
                        .build())
                .handler(herd)
                .handler(flaky)
                .handler(poison)
                .build();
        postbox.start();
        System.out.println("READY " + workerId + " pid="
                + ProcessHandle.current().pid() + " uptimeMs="
                + java.lang.management.ManagementFactory.getRuntimeMXBean().getUptime());
        System.out.flush();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            postbox.stop();
            ds.close();
        }));
        Thread.currentThread().join();
    }

    /** The harness's start marker (the analysis counts started attempts from it, not from Postbox's tables). */
    private static void started(Job job) {
        System.out.println("START " + job.id() + " " + job.kind());
    }

    /** The job's effect, in the transaction that completes it; a repeat is counted, not hidden. */
    private static void effect(DataSource ds, Job job, String workerId) throws SQLException, InterruptedException {
        Object work = job.payload(Map.class).get("workMs");
        if (work instanceof Number n && n.longValue() > 0) {
            Thread.sleep(n.longValue());
        }
        Connection c = DataSourceUtils.getConnection(ds);
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO incident_effect (job_id, kind, attempt, worker)"
                + " VALUES (?, ?, ?, ?) ON CONFLICT (job_id) DO UPDATE"
                + " SET applications = incident_effect.applications + 1, last_at = clock_timestamp()")) {
            ps.setLong(1, job.id());
            ps.setString(2, job.kind());
            ps.setInt(3, job.attempt());
            ps.setString(4, workerId);
            ps.executeUpdate();
        } finally {
            DataSourceUtils.releaseConnection(c, ds);
        }
    }

    private static String required(String key) {
        String v = System.getProperty(key);
        if (v == null || v.isBlank()) {
            throw new IllegalArgumentException("IncidentWorkerMain needs -D" + key);
        }
        return v;
    }
}
