package dev.postbox.chaos;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.postbox.HandlerRegistration;
import dev.postbox.JobOutcome;
import dev.postbox.JsonCodec;
import dev.postbox.Outbox;
import dev.postbox.OutcomeHandler;
import dev.postbox.PostboxListener;
import dev.postbox.PostboxModule;
import dev.postbox.RetryPolicy;
import dev.postbox.cron.ScheduleMaterializer;
import dev.postbox.http.HttpDelivery;
import dev.postbox.http.ssrf.SsrfPolicy;
import dev.postbox.http.webhook.HttpDeliveryModule;
import dev.postbox.http.webhook.Webhooks;
import dev.postbox.spring.OutboxHandler;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import okhttp3.OkHttpClient;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * One chaos worker process: a minimal Spring Boot application (no web server) built from {@code
 * postbox-spring-boot-starter}, with the harness's handlers as {@link OutboxHandler} methods
 * ({@link ChaosHandlers}), {@code postbox-delivery-http} added as a {@link PostboxModule} bean
 * ({@link ChaosHttp}), the broker relays ({@link BrokerRelays}), and the cron materialiser. The driver starts it with {@code java -cp <test
 * classpath>} and kills, stops and disconnects it at will.
 *
 * <p>Engine settings come from {@code postbox.*} properties (set below from the driver's {@code
 * chaos.*} system properties); negative controls of the engine are the driver's {@code
 * -Dpostbox.control.*} flags. The schema is installed by the driver. Deliberately {@code
 * @Configuration}, not {@code @SpringBootConfiguration}: a {@code @SpringBootTest} in this package
 * must not pick the worker up as its application.
 */
@Configuration(proxyBeanMethods = false)
@EnableAutoConfiguration
public class WorkerMain {

    static final String LOCAL = "local";
    static final String POISON = "poison";
    static final String CRON = "cron-tick";
    static final String SCHEDULE = "chaos-tick";
    static final int POISON_BUDGET = 3;
    /** The hung kinds ({@link ChaosHandlers#hung}, {@link ChaosHandlers#hungDeaf}) and their time limit. */
    static final String HUNG = "hang";

    static final String HUNG_DEAF = "hang-deaf";
    static final String HUNG_TIME_LIMIT = "1s";
    static final long HUNG_TIME_LIMIT_MILLIS = 1_000;

    /** Endpoint connect/read/call timeout; the receiver's "timeout after apply" sleeps longer. */
    static final Duration HTTP_TIMEOUT = Duration.ofSeconds(1);

    /** The retry policy of every healthy kind and endpoint: short backoff, the engine's default budget. */
    static final RetryPolicy REGULAR = RetryPolicy.custom()
            .base(Duration.ofMillis(100))
            .cap(Duration.ofSeconds(2))
            .maxAttempts(RetryPolicy.DEFAULT_MAX_ATTEMPTS)
            .build();

    public static void main(String[] args) throws Exception {
        String workerId = required("chaos.workerId");
        required("chaos.jdbcUrl");
        // Keep the harness's logback configuration (worker output is parsed for markers).
        System.setProperty("org.springframework.boot.logging.LoggingSystem", "none");

        Map<String, Object> p = new LinkedHashMap<>();
        p.put("spring.main.web-application-type", "none");
        p.put("spring.main.banner-mode", "off");
        p.put("spring.main.log-startup-info", "false");
        p.put("spring.jmx.enabled", "false");
        p.put("postbox.schema.initialize", "never");
        // delivery-http is installed by the chaosHttp module below; the starter's own HTTP
        // auto-configuration (when the starter has it) backs off so the handlers exist once.
        p.put("postbox.http.enabled", "false");
        p.put("postbox.worker.id", workerId);
        p.put("postbox.worker.concurrency", required("chaos.concurrency"));
        p.put("postbox.worker.claim-batch-size", required("chaos.claimBatchSize"));
        p.put("postbox.worker.prefetch", required("chaos.prefetch"));
        p.put("postbox.worker.poll-interval", "250ms");
        p.put("postbox.worker.visibility-timeout", required("chaos.visibilityMs") + "ms");
        p.put("postbox.worker.heartbeat-interval", required("chaos.heartbeatMs") + "ms");
        p.put("postbox.worker.rescue-interval", "500ms");
        p.put("postbox.worker.shutdown-grace", "2s");
        p.put("postbox.retry.base", "100ms");
        p.put("postbox.retry.cap", "2s");

        long before = ManagementFactory.getRuntimeMXBean().getUptime();
        SpringApplication app = new SpringApplication(WorkerMain.class);
        app.setWebApplicationType(WebApplicationType.NONE);
        app.setDefaultProperties(p);
        ConfigurableApplicationContext context = app.run(args);
        long uptime = ManagementFactory.getRuntimeMXBean().getUptime();
        System.out.println(
                "READY " + workerId + " pid=" + ProcessHandle.current().pid() + " crashPoint="
                        + context.getBean(CrashPoints.class).armedLabel() + " springMs=" + (uptime - before)
                        + " uptimeMs=" + uptime);
        System.out.flush();
        if (Boolean.getBoolean("chaos.exitAfterReady")) {
            // The driver's class-data-sharing training run: the archive is written at exit.
            context.close();
            System.exit(0);
        }
        context.getBean(WorkerDefects.class).exitLaterIfPlanned(); // CONTROL WORKER_EXITS, one incarnation
        Thread.currentThread().join();
    }

    // ---------------------------------------------------------------- beans

    @Bean
    CrashPoints chaosCrashPoints() {
        return CrashPoints.fromSystemProperties();
    }

    /** The harness's deliberate defects switched on for this worker (negative controls; none in the valid run). */
    @Bean
    WorkerDefects chaosDefects() {
        return WorkerDefects.fromSystemProperties();
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
        hc.setMaximumPoolSize(Integer.parseInt(required("chaos.poolSize")));
        hc.setMinimumIdle(2);
        hc.setConnectionTimeout(5_000);
        // A worker (re)started while the soak restarts PostgreSQL waits for it, as a deployment with
        // a start-up probe does, instead of failing fast (the first soak counted 3 such exits as
        // unexpected). An exit for any other reason still counts.
        hc.setInitializationFailTimeout(20_000);
        HikariDataSource hikari = new HikariDataSource(hc);
        return new Pools(hikari, crash.wrap(hikari));
    }

    /** The application's only DataSource: the starter builds Postbox (and Boot the transaction manager) on it. */
    @Bean
    DataSource dataSource(Pools pools) {
        return pools.dataSource();
    }

    @Bean
    ChaosHandlers chaosHandlers(DataSource dataSource, CrashPoints crash, WorkerDefects defects, ChaosHttp http) {
        return new ChaosHandlers(
                dataSource,
                crash,
                required("chaos.workerId"),
                Integer.getInteger("chaos.localWorkMaxMs", 0),
                defects,
                http.webhooks());
    }

    /** Stale-token rejections as the engine reports them (the checker has its own count of fenced zombies). */
    @Bean
    PostboxListener chaosStaleTokenListener() {
        return new PostboxListener() {
            @Override
            public void staleToken(long jobId, String operation) {
                System.out.println("STALE job=" + jobId + " op=" + operation);
            }
        };
    }

    /**
     * delivery-http on the engine's DataSource; endpoints are registered by the driver (allow-list
     * 127.0.0.1/32: the receiver listens on loopback). Not a bean itself: the starter would add it to
     * the engine as it is, and the engine gets it wrapped in crash points ({@link ChaosHttp}).
     */
    static HttpDeliveryModule chaosHttpDelivery(DataSource dataSource, JsonCodec codec, WorkerDefects defects) {
        HttpDelivery.Builder delivery = HttpDelivery.builder()
                .ssrfPolicy(SsrfPolicy.custom().allow("127.0.0.1/32").build());
        if (defects.badSignature) {
            // CONTROL BAD_SIGNATURE: the client sends a slice once with a corrupted signature first (the
            // client lives as long as the worker process)
            delivery.baseClient(new OkHttpClient.Builder()
                    .addInterceptor(defects.badSignatureInterceptor())
                    .build());
        }
        return HttpDeliveryModule.builder(dataSource)
                .codec(codec)
                .secretCipher(ChaosEndpoints.CIPHER)
                .delivery(delivery.build())
                .retryPolicy(REGULAR)
                // A delivery that gets no permit within 250 ms is snoozed (no attempt spent) instead of
                // holding a worker thread for the default 2 s: bursts to the rate-limited endpoint
                // would otherwise occupy most of the worker's threads and starve the other kinds.
                .maxPermitWait(Duration.ofMillis(250))
                .endpointCacheTtl(Duration.ofSeconds(5))
                .build();
    }

    /**
     * The broker relays (Kafka, RabbitMQ, NATS JetStream) with the markers and crash points around
     * them, when the driver gave the run's destinations ({@code -Dchaos.kafka.bootstrap}, ...).
     */
    @Bean(destroyMethod = "close")
    @ConditionalOnProperty("chaos.kafka.bootstrap")
    BrokerRelays chaosBrokerRelays(CrashPoints crash) {
        return new BrokerRelays(crash);
    }

    /** The webhook delivery and fan-out handlers, with the markers and crash points around them. */
    @Bean(destroyMethod = "close")
    ChaosHttp chaosHttp(DataSource dataSource, JsonCodec codec, CrashPoints crash, WorkerDefects defects) {
        return new ChaosHttp(chaosHttpDelivery(dataSource, codec, defects), crash, defects);
    }

    /**
     * delivery-http as the engine's module, each handler wrapped in the crash points (and, under their
     * controls, the harness's fan-out defects: {@link WorkerDefects#skipsDelivery}, {@link
     * WorkerDefects#parks}).
     */
    static final class ChaosHttp implements PostboxModule, AutoCloseable {

        private final HttpDeliveryModule http;
        private final CrashPoints crash;
        private final WorkerDefects defects;

        ChaosHttp(HttpDeliveryModule http, CrashPoints crash, WorkerDefects defects) {
            this.http = http;
            this.crash = crash;
            this.defects = defects;
        }

        /** delivery-http's sender in this worker. */
        Webhooks webhooks() {
            return http.webhooks();
        }

        @Override
        public List<HandlerRegistration> handlers() {
            return http.handlers().stream()
                    .map(r -> HandlerRegistration.of(r.kind(), (OutcomeHandler) job -> {
                                long entered = System.currentTimeMillis();
                                crash.started(job);
                                if (defects.skipsDelivery(job)) {
                                    // CONTROL FAN_OUT_SKIPS_A_SUBSCRIBER: completed, never sent
                                    return JobOutcome.done();
                                }
                                JobOutcome outcome;
                                try {
                                    outcome = r.handler().attempt(defects.asSeenByDelivery(job));
                                } finally {
                                    KeyRuns.ran(job, WorkerDefects.seq(job), entered);
                                }
                                if (outcome instanceof JobOutcome.Done) {
                                    crash.afterHandler(job);
                                    if (defects.parks(job)) {
                                        // CONTROL FAN_OUT_NEVER_COMPLETES: expanded, then put back for an hour
                                        return JobOutcome.snooze(WorkerDefects.PARKED_FOR, "chaos control: parked");
                                    }
                                }
                                return outcome;
                            })
                            .transactional(r.isTransactional())
                            .retryPolicy(r.retryPolicy()))
                    .toList();
        }

        @Override
        public void install(Context context) {
            http.install(context);
        }

        @Override
        public void close() {
            http.close();
        }
    }

    @Bean
    CronMaterializer chaosCron(DataSource dataSource, Outbox outbox) {
        return new CronMaterializer(dataSource, outbox, Duration.ofMillis(Long.getLong("chaos.cronOffsetMs", 0)));
    }

    /**
     * Runs the schedule materialiser while the context runs, on a clock {@code offset} from the
     * database's (a node whose clock is ahead plans fires early). The driver registers the schedule.
     */
    static final class CronMaterializer implements SmartLifecycle {
        private final DataSource dataSource;
        private final Outbox outbox;
        private final Duration offset;
        private volatile ScheduleMaterializer materializer;

        CronMaterializer(DataSource dataSource, Outbox outbox, Duration offset) {
            this.dataSource = dataSource;
            this.outbox = outbox;
            this.offset = offset;
        }

        @Override
        public void start() {
            ScheduleMaterializer m = ScheduleMaterializer.builder(dataSource, outbox)
                    .pollInterval(Duration.ofMillis(250))
                    .clockOffset(() -> offset)
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

    static String required(String key) {
        String v = System.getProperty(key);
        if (v == null || v.isBlank()) {
            throw new IllegalArgumentException("WorkerMain needs -D" + key);
        }
        return v;
    }
}
