package dev.postbox.cron;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import dev.postbox.Outbox;
import dev.postbox.Postbox;
import dev.postbox.testing.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The materialiser and registry against real PostgreSQL, with time driven by a clock offset. */
class ScheduleMaterializerDatabaseTest {

    private DataSource dataSource;
    private Postbox postbox;
    private Outbox outbox;
    private ScheduleRegistry registry;

    @BeforeEach
    void setUp() {
        dataSource = TestDatabase.create();
        postbox = Postbox.builder(dataSource).build();
        outbox = postbox.outbox();
        registry = new ScheduleRegistry(dataSource);
    }

    @AfterEach
    void tearDown() {
        postbox.close();
        TestDatabase.drop(dataSource);
    }

    @Test
    void fiveSkewedMaterialisersCreateExactlyOneJobPerFire() throws Exception {
        registry.register(ScheduleDefinition.builder("tick")
                .cron("* * * * * *")
                .kind("tick")
                .build());
        Instant firstFire = nextFireAt("tick");

        long[] skewsMillis = {-2000, -1000, 0, 1000, 2000};
        int steps = 120; // 120 x 250 ms = 30 s of simulated time
        AtomicLong baseMillis = new AtomicLong();
        CyclicBarrier everyStep = new CyclicBarrier(skewsMillis.length, () -> baseMillis.addAndGet(250));
        ExecutorService threads = Executors.newFixedThreadPool(skewsMillis.length);
        List<Future<MaterializeResult>> results = new ArrayList<>();
        try {
            for (long skew : skewsMillis) {
                ScheduleMaterializer node = ScheduleMaterializer.builder(dataSource, outbox)
                        .clockOffset(() -> Duration.ofMillis(baseMillis.get() + skew))
                        .build();
                results.add(threads.submit(() -> {
                    MaterializeResult total = new MaterializeResult(0, 0, 0, 0, 0);
                    for (int step = 0; step < steps; step++) {
                        everyStep.await(30, TimeUnit.SECONDS);
                        total = total.plus(node.materializeAllDue());
                    }
                    return total;
                }));
            }
            MaterializeResult sum = new MaterializeResult(0, 0, 0, 0, 0);
            for (Future<MaterializeResult> result : results) {
                sum = sum.plus(result.get(2, TimeUnit.MINUTES));
            }

            List<Fire> fires = fires("tick");
            assertThat(fires).hasSizeGreaterThanOrEqualTo(31);
            for (int i = 0; i < fires.size(); i++) {
                Fire fire = fires.get(i);
                assertThat(fire.fireAt()).as("fire %d, none missing", i).isEqualTo(firstFire.plusSeconds(i));
                assertThat(fire.runAt()).as("run_at is the fire instant").isEqualTo(fire.fireAt());
            }
            assertThat(jobCount("tick")).as("one job per fire instant").isEqualTo(fires.size());
            assertThat(sum.jobsCreated()).isEqualTo(fires.size());
            assertThat(sum.failedSchedules()).isZero();
            assertThat(sum.firesDeduplicated())
                    .as("the row lock already keeps nodes apart")
                    .isZero();
            assertThat(nextFireAt("tick"))
                    .isEqualTo(fires.get(fires.size() - 1).fireAt().plusSeconds(1));
        } finally {
            threads.shutdownNow();
        }
    }

    @Test
    void tenMissedHourlyFiresBecomeOneTenOrNoJobs() throws Exception {
        for (MissedFirePolicy policy : MissedFirePolicy.values()) {
            registry.register(ScheduleDefinition.builder("hourly-" + policy)
                    .cron("0 * * * *")
                    .missedFirePolicy(policy)
                    .build());
        }
        Instant firstMissed = nextFireAt("hourly-ONE");
        // Resume half an hour after the tenth missed fire.
        ScheduleMaterializer resumed = materializerAt(firstMissed.plus(Duration.ofMinutes(9 * 60 + 30)));

        MaterializeResult result = resumed.materializeAllDue();

        assertThat(result.schedules()).isEqualTo(3);
        assertThat(fires("hourly-ONE")).extracting(Fire::fireAt).containsExactly(firstMissed.plusSeconds(9 * 3600));
        assertThat(fires("hourly-ALL")).extracting(Fire::fireAt).hasSize(10).startsWith(firstMissed);
        assertThat(fires("hourly-NONE")).isEmpty();
        for (MissedFirePolicy policy : MissedFirePolicy.values()) {
            assertThat(nextFireAt("hourly-" + policy)).isEqualTo(firstMissed.plusSeconds(10 * 3600));
        }
        assertThat(resumed.materializeAllDue().jobsCreated())
                .as("nothing left to catch up")
                .isZero();
    }

    @Test
    void pausedScheduleCreatesNothingAndCatchesUpOnceOnResume() throws Exception {
        registry.register(ScheduleDefinition.builder("report").cron("@hourly").build());
        Instant first = nextFireAt("report");
        ScheduleMaterializer later = materializerAt(first.plus(Duration.ofMinutes(150)));

        assertThat(registry.pause("report")).isTrue();
        assertThat(registry.pause("report")).isFalse();
        assertThat(later.materializeAllDue().schedules()).isZero();
        assertThat(fires("report")).isEmpty();

        assertThat(registry.resume("report")).isTrue();
        assertThat(later.materializeAllDue().jobsCreated()).isEqualTo(1);
        assertThat(fires("report")).extracting(Fire::fireAt).containsExactly(first.plusSeconds(2 * 3600));
        assertThatThrownBy(() -> registry.pause("nope")).hasMessage("No schedule named 'nope'");
    }

    @Test
    void theRegistryReadsSchedulesBackWithTheirLatestFiresNewestFirst() throws Exception {
        registry.register(ScheduleDefinition.builder("hourly")
                .cron("@hourly")
                .zone("Europe/Berlin")
                .kind("report")
                .queue("reports")
                .missedFirePolicy(MissedFirePolicy.ALL)
                .build());
        registry.register(ScheduleDefinition.builder("another").cron("@daily").build());
        registry.pause("another");
        Instant first = nextFireAt("hourly");
        materializerAt(first.plus(Duration.ofMinutes(150))).materializeAllDue();

        assertThat(registry.schedules(2)).extracting(StoredSchedule::name).containsExactly("another", "hourly");
        StoredSchedule hourly = registry.schedule("hourly", 2).orElseThrow();
        assertThat(hourly.cron()).isEqualTo("@hourly");
        assertThat(hourly.zone()).isEqualTo("Europe/Berlin");
        assertThat(hourly.kind()).isEqualTo("report");
        assertThat(hourly.queue()).isEqualTo("reports");
        assertThat(hourly.paused()).isFalse();
        assertThat(hourly.missedFirePolicy()).isEqualTo(MissedFirePolicy.ALL);
        assertThat(hourly.lastFireAt()).isEqualTo(first.plusSeconds(2 * 3600));
        assertThat(hourly.nextFireAt()).isEqualTo(first.plusSeconds(3 * 3600));
        assertThat(hourly.recentFires())
                .as("the two latest of three fires, newest first")
                .extracting(ScheduleFire::fireAt)
                .containsExactly(first.plusSeconds(2 * 3600), first.plusSeconds(3600));
        assertThat(hourly.recentFires().get(0).jobId()).isEqualTo(hourly.lastJobId());
        assertThat(hourly.recentFires()).extracting(ScheduleFire::state).containsOnly("pending");
        StoredSchedule another = registry.schedule("another", 2).orElseThrow();
        assertThat(another.paused()).isTrue();
        assertThat(another.recentFires()).isEmpty();
        assertThat(registry.schedules(0))
                .allSatisfy(s -> assertThat(s.recentFires()).isEmpty());
        assertThat(registry.schedule("nope", 2)).isEmpty();
    }

    @Test
    void skipIfRunningSkipsFiresWhileTheEarlierJobIsUnfinished() throws Exception {
        registry.register(ScheduleDefinition.builder("exclusive")
                .cron("@hourly")
                .missedFirePolicy(MissedFirePolicy.ALL)
                .overlapPolicy(OverlapPolicy.SKIP_IF_RUNNING)
                .build());
        Instant first = nextFireAt("exclusive");

        MaterializeResult result =
                materializerAt(first.plus(Duration.ofMinutes(150))).materializeAllDue();

        assertThat(result.jobsCreated()).isEqualTo(1);
        assertThat(result.firesSkipped()).isEqualTo(2);
        assertThat(fires("exclusive")).extracting(Fire::fireAt).containsExactly(first);
    }

    @Test
    void jobsCarryKindQueueRenderedPayloadAndFireKey() throws Exception {
        registry.register(ScheduleDefinition.builder("nightly-report")
                .cron("30 2 * * *")
                .zone("Europe/Berlin")
                .kind("build-report")
                .queue("reports")
                .payloadTemplate("{\"at\": \"${fireAt}\", \"schedule\": \"${scheduleName}\"}")
                .build());
        Instant first = nextFireAt("nightly-report");
        materializerAt(first.plusSeconds(5)).materializeAllDue();

        String key = FireKey.of("nightly-report", first);
        try (Connection c = dataSource.getConnection();
                PreparedStatement ps =
                        c.prepareStatement("SELECT kind, queue, payload ->> 'at', payload ->> 'schedule',"
                                + " idempotency_key FROM outbox_job WHERE fire_key = ?")) {
            ps.setString(1, key);
            try (ResultSet rs = ps.executeQuery()) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getString(1)).isEqualTo("build-report");
                assertThat(rs.getString(2)).isEqualTo("reports");
                assertThat(rs.getString(3)).isEqualTo(first.toString());
                assertThat(rs.getString(4)).isEqualTo("nightly-report");
                assertThat(rs.getString(5)).isEqualTo(key);
            }
        }
        assertThat(historyCount("nightly-report")).isEqualTo(1);
    }

    /** A schedule of a tenant: its fires are jobs of the tenant, and the tenant is part of the definition. */
    @Test
    void aTenantsScheduleCreatesJobsOfThatTenant() throws Exception {
        ScheduleDefinition acme = ScheduleDefinition.builder("acme-report")
                .cron("0 3 * * *")
                .kind("report")
                .tenant("acme")
                .build();
        ScheduleDefinition shared = ScheduleDefinition.builder("shared-report")
                .cron("0 3 * * *")
                .kind("report")
                .build();
        registry.register(List.of(acme, shared));
        registry.register(acme.toBuilder().tenant("globex").build());
        assertThat(scheduleTenant("acme-report")).as("a new tenant is a change").isEqualTo("globex");
        registry.register(acme);
        assertThat(scheduleTenant("acme-report")).isEqualTo("acme");
        assertThat(scheduleTenant("shared-report")).isNull();
        Instant first = nextFireAt("acme-report");
        materializerAt(first.plusSeconds(5)).materializeAllDue();

        try (Connection c = dataSource.getConnection();
                PreparedStatement ps = c.prepareStatement(
                        "SELECT split_part(fire_key, '@', 1), tenant FROM outbox_job ORDER BY fire_key")) {
            try (ResultSet rs = ps.executeQuery()) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getString(1)).isEqualTo("acme-report");
                assertThat(rs.getString(2)).isEqualTo("acme");
                assertThat(rs.next()).isTrue();
                assertThat(rs.getString(1)).isEqualTo("shared-report");
                assertThat(rs.getString(2)).isNull();
                assertThat(rs.next()).isFalse();
            }
        }
        assertThatThrownBy(() -> ScheduleDefinition.builder("x").tenant("no spaces"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("schedule 'x': tenant 'no spaces' is not a valid tenant id");
    }

    /**
     * The registry for one tenant reads back and pauses that tenant's schedules only: another
     * tenant's schedule is not found and its pause fails without touching it.
     */
    @Test
    void theRegistryForATenantSeesAndPausesOnlyThatTenantsSchedules() throws Exception {
        registry.register(List.of(
                ScheduleDefinition.builder("acme-report")
                        .cron("0 3 * * *")
                        .tenant("acme")
                        .build(),
                ScheduleDefinition.builder("globex-report")
                        .cron("0 3 * * *")
                        .tenant("globex")
                        .build(),
                ScheduleDefinition.builder("shared-report").cron("0 3 * * *").build()));
        materializerAt(nextFireAt("acme-report").plusSeconds(5)).materializeAllDue();

        TenantSchedules acme = registry.forTenant("acme");
        assertThat(acme.tenant()).contains("acme");
        assertThat(acme.schedules(5)).singleElement().satisfies(s -> {
            assertThat(s.name()).isEqualTo("acme-report");
            assertThat(s.tenant()).isEqualTo("acme");
            assertThat(s.recentFires()).hasSize(1);
        });
        assertThat(registry.forDefaultTenant().schedules(0))
                .extracting(StoredSchedule::name, StoredSchedule::tenant)
                .containsExactly(tuple("shared-report", null));
        assertThat(registry.schedules(0)).extracting(StoredSchedule::tenant).containsExactly("acme", "globex", null);
        assertThat(acme.schedule("globex-report", 5)).isEmpty();
        assertThat(acme.schedule("acme-report", 0)).isPresent();

        assertThatThrownBy(() -> acme.pause("globex-report"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Tenant acme has no schedule named 'globex-report'");
        assertThatThrownBy(() -> registry.forDefaultTenant().pause("acme-report"))
                .hasMessage("Tenant (default) has no schedule named 'acme-report'");
        assertThat(registry.schedule("globex-report", 0).orElseThrow().paused()).isFalse();
        assertThat(acme.pause("acme-report")).isTrue();
        assertThat(acme.pause("acme-report")).isFalse();
        assertThat(registry.schedule("acme-report", 0).orElseThrow().paused()).isTrue();
        assertThat(acme.resume("acme-report")).isTrue();
        assertThatThrownBy(() -> registry.forTenant("no spaces"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("tenant 'no spaces' is not a valid tenant id");
    }

    /**
     * Issue 31 item 8, the cron's side: a tenant's fire history lists the fires of its own jobs only.
     * The schedule was globex's before it became acme's (re-registered with another tenant): globex's
     * dead fire, with its error, is not shown to acme, and acme's own fire is.
     */
    @Test
    void aTenantsFireHistoryListsOnlyItsOwnJobs() throws Exception {
        registry.register(List.of(ScheduleDefinition.builder("report")
                .cron("0 3 * * *")
                .tenant("acme")
                .build()));
        try (Connection c = dataSource.getConnection();
                PreparedStatement ps = c.prepareStatement(
                        "INSERT INTO outbox_dead_letter (id, queue, kind,"
                                + " fire_key, payload, priority, attempts, max_attempts, last_error, created_at, tenant)"
                                + " VALUES (nextval('outbox_job_id_seq'), 'default', 'report', ?, '{}', 0, 1, 1, ?, now(), ?)")) {
            Object[][] fires = {
                {"report@2026-12-01T03:00:00Z", "error of globex", "globex"},
                {"report@2026-12-02T03:00:00Z", "error of acme", "acme"},
            };
            for (Object[] fire : fires) {
                ps.setString(1, (String) fire[0]);
                ps.setString(2, (String) fire[1]);
                ps.setString(3, (String) fire[2]);
                ps.executeUpdate();
            }
        }

        assertThat(registry.forTenant("acme")
                        .schedule("report", 5)
                        .orElseThrow()
                        .recentFires())
                .extracting(ScheduleFire::lastError)
                .containsExactly("error of acme");
        assertThat(registry.forTenant("acme").schedules(5))
                .singleElement()
                .satisfies(s -> assertThat(s.recentFires())
                        .extracting(ScheduleFire::lastError)
                        .containsExactly("error of acme"));
        // The unscoped registry shows every fire of the name.
        assertThat(registry.schedule("report", 5).orElseThrow().recentFires()).hasSize(2);
    }

    @Test
    void registrationIsIdempotentAndOnlyATimingChangeRestartsTheSchedule() throws Exception {
        ScheduleDefinition v1 =
                ScheduleDefinition.builder("sync").cron("0 0 1 1 *").build();
        assertThat(registry.register(List.of(v1))).containsExactly("sync");
        Instant next = nextFireAt("sync");
        assertThat(registry.register(List.of(v1))).isEmpty();

        registry.register(v1.toBuilder().queue("other").build());
        assertThat(nextFireAt("sync")).isEqualTo(next);

        registry.register(v1.toBuilder().cron("@hourly").build());
        assertThat(nextFireAt("sync")).isBefore(next);
    }

    @Test
    void registrationRejectsDuplicatesAndNonJsonPayloads() {
        ScheduleDefinition a = ScheduleDefinition.builder("a").cron("@daily").build();
        assertThatThrownBy(() -> registry.register(List.of(a, a)))
                .hasMessageStartingWith("Schedule 'a' is defined twice");
        ScheduleDefinition bad = ScheduleDefinition.builder("bad")
                .cron("@daily")
                .payloadTemplate("{\"n\": ${fireAt}}")
                .build();
        assertThatThrownBy(() -> registry.register(bad))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("Schedule 'bad': payloadTemplate is not valid JSON");
    }

    // --- helpers ---

    private record Fire(Instant fireAt, Instant runAt) {}

    /** A materialiser whose database clock reads {@code target} (give or take the test's run time). */
    private ScheduleMaterializer materializerAt(Instant target) throws SQLException {
        Duration offset = Duration.between(databaseNow(), target);
        return ScheduleMaterializer.builder(dataSource, outbox)
                .clockOffset(() -> offset)
                .build();
    }

    private Instant databaseNow() throws SQLException {
        try (Connection c = dataSource.getConnection();
                PreparedStatement ps = c.prepareStatement("SELECT now()");
                ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getObject(1, OffsetDateTime.class).toInstant();
        }
    }

    private String scheduleTenant(String name) throws SQLException {
        try (Connection c = dataSource.getConnection();
                PreparedStatement ps = c.prepareStatement("SELECT tenant FROM outbox_schedule WHERE name = ?")) {
            ps.setString(1, name);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getString(1);
            }
        }
    }

    private Instant nextFireAt(String name) throws SQLException {
        try (Connection c = dataSource.getConnection();
                PreparedStatement ps = c.prepareStatement("SELECT next_fire_at FROM outbox_schedule WHERE name = ?")) {
            ps.setString(1, name);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getObject(1, OffsetDateTime.class).toInstant();
            }
        }
    }

    /** The fires of a schedule from the live job table, by fire instant. */
    private List<Fire> fires(String name) throws SQLException {
        List<Fire> fires = new ArrayList<>();
        try (Connection c = dataSource.getConnection();
                PreparedStatement ps = c.prepareStatement(
                        "SELECT fire_key, run_at FROM outbox_job" + " WHERE fire_key LIKE ? ORDER BY fire_key")) {
            ps.setString(1, name + "@%");
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    String key = rs.getString(1);
                    fires.add(new Fire(
                            Instant.parse(key.substring(name.length() + 1)),
                            rs.getObject(2, OffsetDateTime.class).toInstant()));
                }
            }
        }
        return fires;
    }

    private long jobCount(String kind) throws SQLException {
        try (Connection c = dataSource.getConnection();
                PreparedStatement ps = c.prepareStatement("SELECT count(*) FROM outbox_job WHERE kind = ?")) {
            ps.setString(1, kind);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    private long historyCount(String name) throws SQLException {
        try (Connection c = dataSource.getConnection();
                PreparedStatement ps =
                        c.prepareStatement("SELECT count(*) FROM outbox_schedule_fire WHERE schedule_name = ?")) {
            ps.setString(1, name);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }
}
