package dev.postbox.chaos;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.postbox.HandlerRegistration;
import dev.postbox.Job;
import dev.postbox.JsonCodec;
import dev.postbox.Outbox;
import dev.postbox.Postbox;
import dev.postbox.PostboxListener;
import dev.postbox.RetryPolicy;
import dev.postbox.cron.ScheduleDefinition;
import dev.postbox.cron.ScheduleMaterializer;
import dev.postbox.cron.ScheduleRegistry;
import dev.postbox.http.HttpDelivery;
import dev.postbox.http.SsrfPolicy;
import dev.postbox.http.webhook.HttpDeliveryModule;
import dev.postbox.spring.OutboxHandler;
import dev.postbox.spring.PostboxCustomizer;
import java.lang.management.ManagementFactory;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import javax.sql.DataSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.datasource.DataSourceUtils;

/**
 * One chaos worker process: a minimal Spring Boot application (no web server) built from
 * {@code postbox-spring-boot-starter}, with the harness's handlers as {@link OutboxHandler} methods,
 * {@code postbox-delivery-http} installed through a {@link PostboxCustomizer} (signed, keyed
 * webhook deliveries and fan-out), and the cron materialiser. The driver starts it with {@code java
 * -cp <test classpath>} and kills, stops and disconnects it at will.
 *
 * <p>Engine settings come from {@code postbox.*} properties (set below as the application's default
 * properties); the schema is installed by the driver ({@code postbox.schema.initialize=never}).
 * Deliberately {@code @Configuration}, not {@code @SpringBootConfiguration}: a {@code @SpringBootTest}
 * in this package must not pick the worker up as its application.
 */
@Configuration(proxyBeanMethods = false)
@EnableAutoConfiguration
public class WorkerMain {

    static final String LOCAL = "local";
    static final String POISON = "poison";
    static final String CRON = "cron-tick";
    static final String SCHEDULE = "chaos-tick";
    static final int REGULAR_BUDGET = 100;
    static final int POISON_BUDGET = 3;
    /** Endpoint connect/read/call timeout; the receiver's "timeout after apply" sleeps longer. */
    static final Duration HTTP_TIMEOUT = Duration.ofSeconds(1);
    /** Connections per worker process (PostgreSQL's max_connections is shared with other test runs). */
    static final int POOL_SIZE = 6;

    static final RetryPolicy REGULAR = RetryPolicy.custom()
            .base(Duration.ofMillis(100))
            .cap(Duration.ofSeconds(2))
            .maxAttempts(REGULAR_BUDGET)
            .build();

    public static void main(String[] args) throws Exception {
        String workerId = required("chaos.workerId");
        required("chaos.jdbcUrl");
        boolean brokenFencing = Boolean.getBoolean("chaos.brokenFencing");
        long visibilityMs = Long.getLong("chaos.visibilityMs", 2000);
        long heartbeatMs = Long.getLong("chaos.heartbeatMs", 500);
        // Keep the harness's logback configuration (worker output is parsed for markers).
        System.setProperty("org.springframework.boot.logging.LoggingSystem", "none");

        Map<String, Object> p = new LinkedHashMap<>();
        p.put("spring.main.web-application-type", "none");
        p.put("spring.main.banner-mode", "off");
        p.put("spring.main.log-startup-info", "false");
        p.put("spring.jmx.enabled", "false");
        p.put("postbox.schema.initialize", "never");
        // delivery-http is installed by chaosHttpInstaller below; the starter's own HTTP
        // auto-configuration (when the starter has it) backs off so the handlers exist once.
        p.put("postbox.http.enabled", "false");
        p.put("postbox.worker.id", workerId);
        p.put("postbox.worker.concurrency", "8");
        p.put("postbox.worker.claim-batch-size", "16");
        p.put("postbox.worker.prefetch", "16");
        p.put("postbox.worker.poll-interval", "250ms");
        p.put("postbox.worker.visibility-timeout", visibilityMs + "ms");
        p.put("postbox.worker.heartbeat-interval", heartbeatMs + "ms");
        p.put("postbox.worker.rescue-interval", "500ms");
        p.put("postbox.worker.shutdown-grace", "2s");
        p.put("postbox.retry.base", "100ms");
        p.put("postbox.retry.cap", "2s");
        p.put("postbox.retry.max-attempts", Integer.toString(REGULAR_BUDGET));
        if (brokenFencing) {
            // Negative control: the local handler's effect commits on its own, outside the fenced completion.
            p.put("postbox.handlers." + LOCAL + ".transactional", "false");
        }

        long before = ManagementFactory.getRuntimeMXBean().getUptime();
        SpringApplication app = new SpringApplication(WorkerMain.class);
        app.setWebApplicationType(WebApplicationType.NONE);
        app.setDefaultProperties(p);
        ConfigurableApplicationContext context = app.run(args);
        long uptime = ManagementFactory.getRuntimeMXBean().getUptime();
        System.out.println(
                "READY " + workerId + " pid=" + ProcessHandle.current().pid() + " crashPoints="
                        + context.getBean(CrashPoints.class).enabled() + " springMs=" + (uptime - before)
                        + " uptimeMs=" + uptime);
        System.out.flush();
        if (Boolean.getBoolean("chaos.exitAfterReady")) {
            // The driver's class-data-sharing training run: the archive is written at exit.
            context.close();
            System.exit(0);
        }
        Thread.currentThread().join();
    }

    // ---------------------------------------------------------------- beans

    @Bean
    CrashPoints chaosCrashPoints() {
        return CrashPoints.fromSystemProperties(Long.parseLong(required("chaos.seed")));
    }

    /** The raw pool (closed with the context) and the crash-point proxy the engine uses. */
    record Pools(HikariDataSource raw, DataSource dataSource) implements AutoCloseable {
        @Override
        public void close() {
            raw.close();
        }
    }

    @Bean
    Pools chaosPools(CrashPoints crash) {
        HikariConfig hc = new HikariConfig();
        hc.setJdbcUrl(required("chaos.jdbcUrl")); // carries ApplicationName for pg_terminate_backend
        hc.setPoolName(required("chaos.workerId"));
        hc.setMaximumPoolSize(POOL_SIZE);
        hc.setMinimumIdle(2);
        hc.setConnectionTimeout(5_000);
        HikariDataSource hikari = new HikariDataSource(hc);
        return new Pools(hikari, crash.wrap(hikari));
    }

    /** The application's only DataSource: the starter builds Postbox (and Boot the transaction manager) on it. */
    @Bean
    DataSource dataSource(Pools pools) {
        return pools.dataSource();
    }

    @Bean
    ChaosHandlers chaosHandlers(Pools pools, CrashPoints crash) {
        return new ChaosHandlers(pools, crash, required("chaos.workerId"), Boolean.getBoolean("chaos.brokenFencing"));
    }

    /** Stale-token rejections (fenced zombies), counted by the driver from the worker's output. */
    @Bean
    PostboxListener chaosStaleTokenListener() {
        return new PostboxListener() {
            @Override
            public void staleToken(long jobId, String operation) {
                System.out.println("STALE job=" + jobId + " op=" + operation);
                System.out.flush();
            }
        };
    }

    /**
     * delivery-http on the engine's DataSource. Installed by the customizer below because the starter
     * has no HTTP auto-configuration here; endpoints are registered by the driver (allow-list
     * 127.0.0.1/32: the receiver listens on loopback).
     */
    @Bean(destroyMethod = "close")
    HttpDeliveryModule chaosHttpDelivery(DataSource dataSource, ObjectProvider<Postbox> postbox, JsonCodec codec) {
        return HttpDeliveryModule.builder(dataSource, postbox::getObject)
                .codec(codec)
                .delivery(HttpDelivery.builder()
                        .ssrfPolicy(SsrfPolicy.custom().allow("127.0.0.1/32").build())
                        .build())
                .retryPolicy(REGULAR)
                // A delivery that gets no permit within 250 ms is snoozed (no attempt spent) instead of
                // holding a worker thread for the default 2 s: bursts to the rate-limited endpoint
                // would otherwise occupy most of the worker's 8 threads and starve the other kinds.
                .maxPermitWait(Duration.ofMillis(250))
                .endpointCacheTtl(Duration.ofSeconds(5))
                .build();
    }

    /** Installs the webhook delivery and fan-out handlers, with the crash points around them. */
    @Bean
    PostboxCustomizer chaosHttpInstaller(HttpDeliveryModule http, CrashPoints crash) {
        return new PostboxCustomizer() {
            @Override
            public void customizePostbox(Postbox.Builder builder) {
                for (HandlerRegistration r : http.registrations()) {
                    builder.handler(HandlerRegistration.of(r.kind(), job -> {
                                crash.afterClaim(job.id());
                                r.handler().handle(job);
                                crash.afterHandler(job.id());
                            })
                            .transactional(r.isTransactional())
                            .retryPolicy(r.retryPolicy()));
                }
            }
        };
    }

    @Bean
    CronLifecycle chaosCron(DataSource dataSource, Outbox outbox) {
        return new CronLifecycle(dataSource, outbox);
    }

    // ---------------------------------------------------------------- handlers

    /** The harness's local handlers, found by the starter through {@link OutboxHandler}. */
    static final class ChaosHandlers {
        private final Pools pools;
        private final CrashPoints crash;
        private final String workerId;
        private final boolean brokenFencing;

        ChaosHandlers(Pools pools, CrashPoints crash, String workerId, boolean brokenFencing) {
            this.pools = pools;
            this.crash = crash;
            this.workerId = workerId;
            this.brokenFencing = brokenFencing;
        }

        @OutboxHandler(value = LOCAL, transactional = true, backoffBase = "100ms", backoffCap = "2s")
        public void local(Job job) throws SQLException {
            crash.afterClaim(job.id());
            if (brokenFencing) {
                // Negative control: the effect commits on its own before the completion, as an engine
                // without fenced transactional completion would do.
                try (Connection c = pools.raw().getConnection()) {
                    c.setAutoCommit(true);
                    insertLocalEffect(c, job, LOCAL, job.stableKey(), workerId);
                }
            } else {
                insertInTransaction(job, LOCAL);
            }
            crash.afterHandler(job.id());
        }

        @OutboxHandler(value = POISON, maxAttempts = POISON_BUDGET, backoffBase = "50ms", backoffCap = "200ms")
        public void poison(Job job) {
            crash.afterClaim(job.id());
            throw new IllegalStateException("poison job " + job.stableKey() + " always fails");
        }

        @OutboxHandler(value = CRON, transactional = true, backoffBase = "100ms", backoffCap = "2s")
        public void cron(Job job) throws SQLException {
            crash.afterClaim(job.id());
            insertInTransaction(job, CRON);
            crash.afterHandler(job.id());
        }

        /** Joins the engine's transaction (the one that completes the job under its fencing token). */
        private void insertInTransaction(Job job, String kind) throws SQLException {
            DataSource ds = pools.dataSource();
            Connection c = DataSourceUtils.getConnection(ds);
            try {
                insertLocalEffect(c, job, kind, job.stableKey(), workerId);
            } finally {
                DataSourceUtils.releaseConnection(c, ds);
            }
        }
    }

    /** Registers the 1-second schedule and runs the materialiser while the context runs. */
    static final class CronLifecycle implements SmartLifecycle {
        private final DataSource dataSource;
        private final Outbox outbox;
        private volatile ScheduleMaterializer materializer;

        CronLifecycle(DataSource dataSource, Outbox outbox) {
            this.dataSource = dataSource;
            this.outbox = outbox;
        }

        @Override
        public void start() {
            new ScheduleRegistry(dataSource)
                    .register(ScheduleDefinition.builder(SCHEDULE)
                            .cron("* * * * * *")
                            .kind(CRON)
                            .payloadTemplate("{\"fireKey\":\"${fireKey}\"}")
                            .build());
            ScheduleMaterializer m = ScheduleMaterializer.builder(dataSource, outbox)
                    .pollInterval(Duration.ofMillis(250))
                    .build();
            m.start();
            materializer = m;
        }

        @Override
        public void stop() {
            ScheduleMaterializer m = materializer;
            if (m != null) {
                m.stop();
                materializer = null;
            }
        }

        @Override
        public boolean isRunning() {
            return materializer != null;
        }
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
        if (!job.kind().equals(LOCAL)) {
            return 0;
        }
        Object seq = job.payload(Map.class).get("seq");
        return seq instanceof Number n ? n.longValue() : 0;
    }

    private static String required(String key) {
        String v = System.getProperty(key);
        if (v == null || v.isBlank()) {
            throw new IllegalArgumentException("WorkerMain needs -D" + key);
        }
        return v;
    }
}
