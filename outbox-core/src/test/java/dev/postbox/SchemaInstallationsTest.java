package dev.postbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.postbox.cron.ScheduleDefinition;
import dev.postbox.cron.ScheduleMaterializer;
import dev.postbox.cron.ScheduleRegistry;
import dev.postbox.internal.SchemaQualifier;
import dev.postbox.testing.StatementRecorder;
import dev.postbox.testing.TestDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.time.LocalDate;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Issue 13, a configurable schema: two installations in two schemas ({@code billing}, {@code
 * shipping}) of one database, each with its own engine, jobs, dead letters, schedules, archive
 * partitions, installation id and wake-up channel, neither seeing the other's rows.
 *
 * <p>The guard against an unqualified statement: every connection's {@code search_path} is a schema
 * that does not exist ({@code nowhere}), so a Postbox statement that names a table, sequence or
 * function without its schema fails; the {@link StatementRecorder} under Postbox sees each such
 * failure (the background duties' too, which Postbox only logs) and each statement text that names
 * a Postbox object bare. Both must stay empty.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SchemaInstallationsTest {

    private HikariDataSource database;
    private HikariDataSource server;
    private StatementRecorder recorder;
    private DataSource billing;
    private DataSource shipping;
    private JdbcTemplate sql;
    private TransactionTemplate tx;
    private final List<Postbox> engines = new ArrayList<>();

    @BeforeAll
    void installTwoSchemas() {
        database = TestDatabase.createEmpty();
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(
                database.getJdbcUrl() + (database.getJdbcUrl().contains("?") ? "&" : "?") + "currentSchema=nowhere");
        config.setMaximumPoolSize(40);
        server = new HikariDataSource(config);
        recorder = new StatementRecorder(server);
        billing = PostboxSchema.named("billing").dataSource(recorder);
        shipping = PostboxSchema.named("shipping").dataSource(recorder);
        List<Integer> all = SchemaInstaller.migrations().stream()
                .map(SchemaInstaller.Migration::version)
                .toList();
        assertThat(new SchemaInstaller(billing).install()).containsExactlyElementsOf(all);
        assertThat(new SchemaInstaller(shipping).install()).containsExactlyElementsOf(all);
        sql = new JdbcTemplate(server); // the test's own statements, qualified by hand, not recorded
        tx = new TransactionTemplate(new DataSourceTransactionManager(recorder));
        sql.execute("CREATE TABLE public.effect (job_id bigint PRIMARY KEY)");
        recorder.clear(); // the installer runs the scripts as they are, with the schema as search_path
    }

    @AfterEach
    void stopEnginesAndCheckEveryStatementWasQualified() {
        engines.forEach(Postbox::stop);
        engines.clear();
        for (String schema : List.of("billing", "shipping")) {
            sql.execute("TRUNCATE " + schema + ".outbox_job, " + schema + ".outbox_job_archive, " + schema
                    + ".outbox_dead_letter, " + schema + ".outbox_idempotency_key, " + schema + ".outbox_attempt, "
                    + schema + ".outbox_queue, " + schema + ".outbox_worker, " + schema + ".outbox_schedule");
            sql.execute("ALTER SEQUENCE " + schema + ".outbox_job_id_seq RESTART");
        }
        sql.execute("TRUNCATE public.effect");
        assertThat(recorder.notFound())
                .as("statements that failed for want of a schema (search_path is 'nowhere')")
                .isEmpty();
        assertThat(recorder.unqualified())
                .as("statements that name a Postbox object without its schema")
                .isEmpty();
        assertThat(recorder.statements())
                .as("the recorder saw Postbox's statements")
                .anyMatch(s -> s.contains("\"billing\".outbox_job"));
    }

    @AfterAll
    void dropDatabase() {
        server.close();
        TestDatabase.drop(database);
    }

    private Postbox track(Postbox postbox) {
        engines.add(postbox);
        return postbox;
    }

    private static PostboxConfig.Builder fast() {
        return PostboxConfig.custom()
                .pollInterval(Duration.ofMillis(50))
                .completionFlushInterval(Duration.ofMillis(2))
                .heartbeatInterval(Duration.ofMillis(100))
                .rescueInterval(Duration.ofMillis(100))
                .startMarkInterval(Duration.ofMillis(20))
                .maintenanceInterval(Duration.ofMillis(200))
                .shutdownGrace(Duration.ofSeconds(5));
    }

    private long count(String query, Object... args) {
        Long n = sql.queryForObject(query, Long.class, args);
        return n == null ? 0 : n;
    }

    private static String partition(LocalDate day) {
        return "outbox_job_archive_p" + day.format(DateTimeFormatter.BASIC_ISO_DATE);
    }

    @Test
    void eachInstallationRunsItsOwnJobsAndNeverSeesTheOthers() throws Exception {
        Map<String, Set<String>> kindsSeen = new ConcurrentHashMap<>();
        JdbcTemplate app = new JdbcTemplate(recorder); // the application's own statements, in its transaction
        Postbox billingBox = track(Postbox.builder(billing)
                .config(fast().build())
                .handler(
                        "invoice",
                        job -> kindsSeen
                                .computeIfAbsent("billing", k -> ConcurrentHashMap.newKeySet())
                                .add(job.kind()))
                .handler(HandlerRegistration.of(
                                "invoice-tx", job -> app.update("INSERT INTO public.effect VALUES (?)", job.id()))
                        .transactional())
                .handler("doomed", job -> {
                    throw new IllegalStateException("never works");
                })
                .build());
        Postbox shippingBox = track(Postbox.builder(shipping)
                .config(fast().build())
                .handler(
                        "parcel",
                        job -> kindsSeen
                                .computeIfAbsent("shipping", k -> ConcurrentHashMap.newKeySet())
                                .add(job.kind()))
                .build());
        LocalDate tomorrow = sql.queryForObject("SELECT (now() AT TIME ZONE 'UTC')::date", LocalDate.class)
                .plusDays(1);
        sql.execute("DROP TABLE billing." + partition(tomorrow)); // the engine's maintenance recreates it

        // Both sequences start at 1: the same job ids exist in both installations.
        List<EnqueueResult> invoices = tx.execute(s -> billingBox
                .outbox()
                .enqueueAll(IntStream.range(0, 20)
                        .mapToObj(i -> JobRequest.of("invoice", Map.of("n", i)))
                        .toList()));
        List<EnqueueResult> parcels = tx.execute(s -> shippingBox
                .outbox()
                .enqueueAll(IntStream.range(0, 10)
                        .mapToObj(i -> JobRequest.of("parcel", Map.of("n", i)))
                        .toList()));
        assertThat(invoices.get(0).jobId()).isEqualTo(parcels.get(0).jobId());
        for (int i = 0; i < 5; i++) {
            tx.executeWithoutResult(s -> billingBox.outbox().enqueue(JobRequest.of("invoice-tx", Map.of())));
        }
        tx.executeWithoutResult(s -> billingBox
                .outbox()
                .enqueue(JobRequest.builder("doomed")
                        .payload(Map.of())
                        .maxAttempts(1)
                        .build()));
        // One idempotency key in both: one job in each installation, however often it is enqueued.
        JobRequest keyed = JobRequest.builder("invoice")
                .payload(Map.of())
                .idempotencyKey("order-7")
                .build();
        EnqueueResult first = tx.execute(s -> billingBox.outbox().enqueue(keyed));
        EnqueueResult again = tx.execute(s -> billingBox.outbox().enqueue(keyed));
        assertThat(again).isEqualTo(new EnqueueResult(first.jobId(), false));
        EnqueueResult other = tx.execute(s -> shippingBox
                .outbox()
                .enqueue(JobRequest.builder("parcel")
                        .payload(Map.of())
                        .idempotencyKey("order-7")
                        .build()));
        assertThat(other.created()).isTrue();
        // Plain JDBC: the application's connection as it is, search_path 'nowhere'.
        try (Connection c = server.getConnection()) {
            c.setAutoCommit(false);
            billingBox.outbox().enqueue(c, JobRequest.of("invoice", Map.of("plain", true)));
            c.commit();
        }
        // A schedule in billing only.
        new ScheduleRegistry(billing)
                .register(ScheduleDefinition.builder("nightly")
                        .cron("* * * * * *")
                        .kind("invoice")
                        .build());
        assertThat(ScheduleMaterializer.builder(billing, billingBox.outbox())
                        .clockOffset(() -> Duration.ofSeconds(2))
                        .build()
                        .materializeAllDue()
                        .jobsCreated())
                .isPositive();
        long billingJobs = count("SELECT count(*) FROM billing.outbox_job");
        assertThat(billingJobs).isGreaterThanOrEqualTo(20 + 5 + 1 + 1 + 1 + 1);
        assertThat(count("SELECT count(*) FROM shipping.outbox_job")).isEqualTo(11);

        billingBox.start();
        shippingBox.start();

        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            assertThat(count("SELECT count(*) FROM billing.outbox_job")).isZero();
            assertThat(count("SELECT count(*) FROM shipping.outbox_job")).isZero();
        });
        assertThat(count("SELECT count(*) FROM billing.outbox_job_archive WHERE state = 'done'"))
                .isEqualTo(billingJobs - 1);
        assertThat(count("SELECT count(*) FROM billing.outbox_dead_letter")).isOne();
        assertThat(count("SELECT count(*) FROM shipping.outbox_job_archive WHERE state = 'done'"))
                .isEqualTo(11);
        assertThat(count("SELECT count(*) FROM shipping.outbox_dead_letter")).isZero();
        assertThat(count("SELECT count(*) FROM public.effect")).isEqualTo(5);
        assertThat(kindsSeen).containsOnlyKeys("billing", "shipping");
        assertThat(kindsSeen.get("billing")).containsExactly("invoice");
        assertThat(kindsSeen.get("shipping")).containsExactly("parcel");

        // The admin of each sees its own job under the shared id.
        long id = invoices.get(0).jobId();
        assertThat(billingBox.admin().job(id))
                .hasValueSatisfying(j -> assertThat(j.kind()).isEqualTo("invoice"));
        assertThat(shippingBox.admin().job(id))
                .hasValueSatisfying(j -> assertThat(j.kind()).isEqualTo("parcel"));
        assertThat(billingBox.admin().deadLetterCount()).isOne();
        assertThat(shippingBox.admin().deadLetterCount()).isZero();
        billingBox.admin().pause("default");
        assertThat(count("SELECT count(*) FROM billing.outbox_queue WHERE paused"))
                .isOne();
        assertThat(count("SELECT count(*) FROM shipping.outbox_queue")).isZero();
        billingBox.admin().resume("default");
        assertThat(billingBox.admin().replay(DeadLetterFilter.all())).isOne();
        await().atMost(Duration.ofSeconds(10))
                .until(() -> count("SELECT count(*) FROM billing.outbox_job") == 0
                        && count("SELECT count(*) FROM billing.outbox_dead_letter") == 1);
        assertThat(billingBox.rescueExpiredLeases()).containsExactly(0, 0, 0);

        // Maintenance, heartbeats and the installation id: each in its own schema.
        await().atMost(Duration.ofSeconds(10))
                .until(() -> count(
                                "SELECT count(*) FROM pg_tables WHERE schemaname = 'billing' AND tablename = ?",
                                partition(tomorrow))
                        == 1);
        await().atMost(Duration.ofSeconds(10))
                .until(() -> count("SELECT count(*) FROM billing.outbox_worker WHERE heartbeat_at > started_at") == 1
                        && count("SELECT count(*) FROM shipping.outbox_worker WHERE heartbeat_at > started_at") == 1);
        assertThat(count("SELECT count(*) FROM billing.outbox_schedule")).isOne();
        assertThat(count("SELECT count(*) FROM shipping.outbox_schedule")).isZero();
        assertThat(sql.queryForObject("SELECT id FROM billing.outbox_installation", String.class))
                .isNotEqualTo(sql.queryForObject("SELECT id FROM shipping.outbox_installation", String.class));
    }

    @Test
    void eachInstallationWakesItsWorkersOnItsOwnChannel() throws Exception {
        try (Connection listener = DriverManager.getConnection(server.getJdbcUrl())) {
            listener.setAutoCommit(true);
            try (Statement s = listener.createStatement()) {
                s.execute("LISTEN postbox_job");
                s.execute("LISTEN postbox_job_billing");
                s.execute("LISTEN postbox_job_shipping");
            }
            PGConnection pg = listener.unwrap(PGConnection.class);
            Postbox billingBox =
                    track(Postbox.builder(billing).handler("invoice", job -> {}).build());
            tx.executeWithoutResult(s -> billingBox.outbox().enqueue(JobRequest.of("invoice", Map.of())));
            assertThat(channels(pg)).containsExactly("postbox_job_billing");
            Postbox shippingBox =
                    track(Postbox.builder(shipping).handler("parcel", job -> {}).build());
            tx.executeWithoutResult(s -> shippingBox.outbox().enqueue(JobRequest.of("parcel", Map.of())));
            assertThat(channels(pg)).containsExactly("postbox_job_shipping");
        }

        // A worker of billing in "another process" (polling every minute) is woken by billing's enqueue.
        AtomicInteger ran = new AtomicInteger();
        Postbox worker = track(Postbox.builder(billing)
                .config(fast().pollInterval(Duration.ofMinutes(1)).build())
                .handler("invoice", job -> ran.incrementAndGet())
                .build());
        worker.start();
        await().atMost(Duration.ofSeconds(10))
                .until(() -> count("SELECT count(*) FROM pg_stat_activity WHERE query = 'LISTEN postbox_job_billing'"
                                + " AND datname = current_database()")
                        == 1);
        await().atMost(Duration.ofSeconds(10))
                .until(() -> count("SELECT count(*) FROM billing.outbox_job") == 0); // the one enqueued above
        int before = ran.get();
        Postbox producer =
                track(Postbox.builder(billing).handler("invoice", job -> {}).build());
        tx.executeWithoutResult(s -> producer.outbox().enqueue(JobRequest.of("invoice", Map.of())));
        await().atMost(Duration.ofSeconds(10)).until(() -> ran.get() == before + 1);
    }

    /** The channels of the notifications that arrive within a few seconds, after the first. */
    private static Set<String> channels(PGConnection pg) throws Exception {
        Set<String> channels = new HashSet<>();
        PGNotification[] first = pg.getNotifications(10_000);
        assertThat(first).as("a notification within 10 s").isNotNull().isNotEmpty();
        for (PGNotification n : first) {
            channels.add(n.getName());
        }
        PGNotification[] more = pg.getNotifications(500);
        if (more != null) {
            for (PGNotification n : more) {
                channels.add(n.getName());
            }
        }
        return channels;
    }

    @Test
    void everythingPostboxCreatedIsInItsSchemaAndKnownByName() {
        assertThat(new SchemaInstaller(billing).install())
                .as("installed already")
                .isEmpty();
        recorder.clear(); // the installer's own statements run unqualified, with the schema as search_path
        for (String schema : List.of("billing", "shipping")) {
            List<String> objects = sql.queryForList(
                    "SELECT c.relname FROM pg_class c WHERE c.relnamespace = ?::regnamespace"
                            + " AND c.relkind IN ('r', 'p', 'v', 'm', 'S', 'f')"
                            + " UNION SELECT p.proname FROM pg_proc p WHERE p.pronamespace = ?::regnamespace"
                            + " UNION SELECT t.typname FROM pg_type t WHERE t.typnamespace = ?::regnamespace"
                            + "   AND t.typtype IN ('e', 'd')",
                    String.class,
                    schema,
                    schema,
                    schema);
            assertThat(objects)
                    .filteredOn(o -> !o.matches("outbox_job_archive_p\\d{8}"))
                    .as("objects in %s that the qualifier would not qualify", schema)
                    .isNotEmpty()
                    .allMatch(SchemaQualifier.NAMES::contains);
            assertThat(objects).contains("outbox_job", "outbox_job_id_seq", "outbox_schema_version");
            // A function runs with the caller's search_path: it must name no Postbox object unless it fixes
            // its own search_path (ALTER FUNCTION ... SET search_path) or qualifies the name itself.
            List<Map<String, Object>> functions = sql.queryForList(
                    "SELECT p.proname, p.prosrc, coalesce(array_to_string(p.proconfig, ','), '') AS config"
                            + " FROM pg_proc p WHERE p.pronamespace = ?::regnamespace",
                    schema);
            for (Map<String, Object> f : functions) {
                String body = (String) f.get("prosrc");
                boolean pinned = ((String) f.get("config")).contains("search_path=");
                assertThat(pinned
                                || SchemaQualifier.NAMES.stream()
                                        .noneMatch(n -> body.matches("(?s).*(?<![.\\w\"])" + n + "(?![\\w]).*")))
                        .as(
                                "function %s.%s names Postbox objects through the caller's search_path",
                                schema, f.get("proname"))
                        .isTrue();
            }
        }
        assertThat(count("SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
                        + " WHERE n.nspname NOT IN ('billing', 'shipping')"
                        + " AND (c.relname LIKE 'outbox%' OR c.relname LIKE 'postbox%')"))
                .as("nothing of Postbox outside its schemas")
                .isZero();
        assertThat(new SchemaVerifier(billing).missingMigrations()).isEmpty();
        assertThat(new SchemaVerifier(shipping).installedVersion())
                .isEqualTo(SchemaInstaller.migrations()
                        .get(SchemaInstaller.migrations().size() - 1)
                        .version());
        assertThat(new SchemaVerifier(server).installedVersion())
                .as("the connections' own search_path finds no Postbox")
                .isZero();
        assertThat(new SchemaVerifier(PostboxSchema.named("elsewhere").dataSource(server)).installedVersion())
                .isZero();
        // Something for the after-each check to look at.
        Postbox probe = track(Postbox.builder(billing).build());
        assertThat(probe.admin().job(Long.MAX_VALUE)).isEmpty();
        tx.executeWithoutResult(s -> probe.outbox().enqueue(JobRequest.of("probe", Map.of())));
    }
}
