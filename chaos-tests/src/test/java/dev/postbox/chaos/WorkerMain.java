package dev.postbox.chaos;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.postbox.HandlerRegistration;
import dev.postbox.Job;
import dev.postbox.Postbox;
import dev.postbox.PostboxConfig;
import dev.postbox.PostboxListener;
import dev.postbox.RetryJobAfter;
import dev.postbox.RetryPolicy;
import dev.postbox.cron.ScheduleDefinition;
import dev.postbox.cron.ScheduleMaterializer;
import dev.postbox.cron.ScheduleRegistry;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Map;
import javax.sql.DataSource;
import org.springframework.jdbc.datasource.DataSourceUtils;

/**
 * One chaos worker process: a Postbox engine on the run's database with the harness's handlers,
 * plus the cron materialiser. The driver starts it with {@code java -cp <test classpath>} and
 * kills, stops and disconnects it at will.
 *
 * <p>Built on the core engine directly for now; a later change switches it to the Spring Boot
 * starter once that lands, so that the chaos run exercises the starter's wiring too.
 */
public final class WorkerMain {

    static final String LOCAL = "local";
    static final String WEBHOOK = "webhook";
    static final String POISON = "poison";
    static final String CRON = "cron-tick";
    static final String SCHEDULE = "chaos-tick";
    static final int REGULAR_BUDGET = 100;
    static final int POISON_BUDGET = 3;
    static final Duration HTTP_TIMEOUT = Duration.ofSeconds(1);

    private WorkerMain() {}

    public static void main(String[] args) throws Exception {
        String jdbcUrl = required("chaos.jdbcUrl");
        String workerId = required("chaos.workerId");
        URI receiver = URI.create(required("chaos.receiverUrl"));
        long seed = Long.parseLong(required("chaos.seed"));
        boolean brokenFencing = Boolean.getBoolean("chaos.brokenFencing");
        Duration visibility = Duration.ofMillis(Long.getLong("chaos.visibilityMs", 2000));
        Duration heartbeat = Duration.ofMillis(Long.getLong("chaos.heartbeatMs", 500));
        CrashPoints crash = CrashPoints.fromSystemProperties(seed);

        HikariConfig hc = new HikariConfig();
        hc.setJdbcUrl(jdbcUrl);
        hc.setPoolName(workerId);
        hc.setMaximumPoolSize(10);
        hc.setMinimumIdle(2);
        hc.setConnectionTimeout(5_000);
        HikariDataSource hikari = new HikariDataSource(hc);
        DataSource ds = crash.wrap(hikari);

        RetryPolicy regular = RetryPolicy.custom()
                .base(Duration.ofMillis(100))
                .cap(Duration.ofSeconds(2))
                .maxAttempts(REGULAR_BUDGET)
                .build();
        RetryPolicy poison = RetryPolicy.custom()
                .base(Duration.ofMillis(50))
                .cap(Duration.ofMillis(200))
                .maxAttempts(POISON_BUDGET)
                .build();
        HttpClient http = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(HTTP_TIMEOUT)
                .build();

        HandlerRegistration local = HandlerRegistration.of(LOCAL, job -> {
                    crash.afterClaim(job.id());
                    if (brokenFencing) {
                        // Negative control: the effect commits on its own before the completion, as
                        // an engine without fenced transactional completion would do.
                        try (Connection c = hikari.getConnection()) {
                            c.setAutoCommit(true);
                            insertLocalEffect(c, job, LOCAL, job.stableKey(), workerId);
                        }
                    } else {
                        Connection c = DataSourceUtils.getConnection(ds);
                        try {
                            insertLocalEffect(c, job, LOCAL, job.stableKey(), workerId);
                        } finally {
                            DataSourceUtils.releaseConnection(c, ds);
                        }
                    }
                    crash.afterHandler(job.id());
                })
                .transactional(!brokenFencing)
                .retryPolicy(regular);

        HandlerRegistration webhook = HandlerRegistration.of(WEBHOOK, job -> {
                    crash.afterClaim(job.id());
                    deliver(http, receiver, job, workerId);
                    crash.afterHandler(job.id());
                })
                .retryPolicy(regular);

        HandlerRegistration poisonHandler = HandlerRegistration.of(POISON, job -> {
                    crash.afterClaim(job.id());
                    throw new IllegalStateException("poison job " + job.stableKey() + " always fails");
                })
                .retryPolicy(poison);

        HandlerRegistration cron = HandlerRegistration.of(CRON, job -> {
                    crash.afterClaim(job.id());
                    Connection c = DataSourceUtils.getConnection(ds);
                    try {
                        insertLocalEffect(c, job, CRON, job.stableKey(), workerId);
                    } finally {
                        DataSourceUtils.releaseConnection(c, ds);
                    }
                    crash.afterHandler(job.id());
                })
                .transactional()
                .retryPolicy(regular);

        PostboxListener listener = new PostboxListener() {
            @Override
            public void staleToken(long jobId, String operation) {
                System.out.println("STALE job=" + jobId + " op=" + operation);
                System.out.flush();
            }
        };

        Postbox postbox = Postbox.builder(ds)
                .config(PostboxConfig.custom()
                        .workerId(workerId)
                        .concurrency(8)
                        .claimBatchSize(16)
                        .prefetch(16)
                        .pollInterval(Duration.ofMillis(250))
                        .visibilityTimeout(visibility)
                        .heartbeatInterval(heartbeat)
                        .rescueInterval(Duration.ofMillis(500))
                        .retryPolicy(regular)
                        .shutdownGrace(Duration.ofSeconds(2))
                        .build())
                .listener(listener)
                .handler(local)
                .handler(webhook)
                .handler(poisonHandler)
                .handler(cron)
                .build();

        new ScheduleRegistry(ds)
                .register(ScheduleDefinition.builder(SCHEDULE)
                        .cron("* * * * * *")
                        .kind(CRON)
                        .payloadTemplate("{\"fireKey\":\"${fireKey}\"}")
                        .build());
        ScheduleMaterializer materializer = ScheduleMaterializer.builder(ds, postbox.outbox())
                .pollInterval(Duration.ofMillis(250))
                .build();

        postbox.start();
        materializer.start();
        System.out.println("READY " + workerId + " pid="
                + ProcessHandle.current().pid() + " crashPoints=" + crash.enabled() + " uptimeMs="
                + java.lang.management.ManagementFactory.getRuntimeMXBean().getUptime());
        System.out.flush();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            materializer.stop();
            postbox.stop();
            hikari.close();
        }));
        Thread.currentThread().join();
    }

    private static void insertLocalEffect(Connection c, Job job, String kind, String key, String workerId)
            throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO chaos_local_effect"
                + " (intent_key, kind, job_id, attempt, ordering_key, seq, worker) VALUES (?, ?, ?, ?, ?, ?, ?)")) {
            ps.setString(1, key);
            ps.setString(2, kind);
            ps.setLong(3, job.id());
            ps.setInt(4, job.attempt());
            ps.setString(5, job.orderingKey().orElse(null));
            ps.setLong(6, seq(job));
            ps.setString(7, workerId);
            ps.executeUpdate();
        }
    }

    private static long seq(Job job) {
        if (!job.kind().equals(LOCAL) && !job.kind().equals(WEBHOOK)) {
            return 0;
        }
        Object seq = job.payload(Map.class).get("seq");
        return seq instanceof Number n ? n.longValue() : 0;
    }

    /** One attempt: POST with the job's stable key; 2xx succeeds, 429 retries after Retry-After. */
    private static void deliver(HttpClient http, URI receiver, Job job, String workerId) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(receiver.resolve("/deliver"))
                .timeout(HTTP_TIMEOUT)
                .header("Content-Type", "application/json")
                .header("Idempotency-Key", job.stableKey())
                .header("X-Chaos-Job-Id", Long.toString(job.id()))
                .header("X-Chaos-Attempt", Integer.toString(job.attempt()))
                .header("X-Chaos-Worker", workerId)
                .header("X-Chaos-Seq", Long.toString(seq(job)))
                .POST(HttpRequest.BodyPublishers.ofString(job.payloadJson()));
        job.orderingKey().ifPresent(k -> request.header("X-Chaos-Ordering-Key", k));
        HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
        int status = response.statusCode();
        if (status >= 200 && status < 300) {
            return;
        }
        if (status == 429) {
            long seconds = response.headers()
                    .firstValue("Retry-After")
                    .map(Long::parseLong)
                    .orElse(1L);
            throw new RetryJobAfter("receiver said 429", Duration.ofSeconds(seconds));
        }
        throw new IllegalStateException("receiver answered HTTP " + status);
    }

    private static String required(String key) {
        String v = System.getProperty(key);
        if (v == null || v.isBlank()) {
            throw new IllegalArgumentException("WorkerMain needs -D" + key);
        }
        return v;
    }
}
