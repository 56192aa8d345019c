package dev.postbox.spring.schedule;

import static dev.postbox.spring.endpoint.PostboxSchedulesEndpoint.MAX_SCHEDULE_HISTORY;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.postbox.Job;
import dev.postbox.cron.InvalidScheduleException;
import dev.postbox.cron.ScheduleMaterializer;
import dev.postbox.spring.BootAutoConfigurations;
import dev.postbox.spring.OutboxHandler;
import dev.postbox.spring.PostboxAutoConfiguration;
import dev.postbox.spring.PostboxSchedule;
import dev.postbox.spring.endpoint.PostboxEndpoint;
import dev.postbox.spring.endpoint.PostboxEndpointAutoConfiguration;
import dev.postbox.spring.endpoint.PostboxSchedulesEndpoint;
import dev.postbox.spring.metrics.PostboxMetrics;
import dev.postbox.spring.metrics.PostboxMetricsAutoConfiguration;
import dev.postbox.spring.schedule.PostboxScheduleAdmin.ScheduleView;
import dev.postbox.spring.test.PostboxTestHelper;
import dev.postbox.spring.test.PostboxTestHelperConfiguration;
import dev.postbox.testing.TestDatabase;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;

/** Schedules declared by annotation and properties, on a real database with the real materialiser. */
class PostboxScheduleIntegrationTest {

    /** A plain bean method: it becomes the handler of kind schedule:tick. */
    static class Ticker {
        final List<String> firedAt = new CopyOnWriteArrayList<>();
        final List<String> fireKeys = new CopyOnWriteArrayList<>();

        @PostboxSchedule(name = "tick", cron = "* * * * * *", payload = "{\"at\": \"${fireAt}\"}")
        void tick(Map<String, Object> payload, Job job) {
            firedAt.add((String) payload.get("at"));
            fireKeys.add(job.idempotencyKey().orElseThrow());
        }
    }

    static class Reports {
        @OutboxHandler("build-report")
        @PostboxSchedule(name = "hourly-report", cron = "@hourly")
        @PostboxSchedule(name = "nightly-report", cron = "30 2 * * *", zone = "Europe/Berlin", queue = "reports")
        void build(Job job) {}

        @PostboxSchedule(name = "cleanup", cron = "0 0 * * *", missedFires = dev.postbox.cron.MissedFirePolicy.NONE)
        void cleanup() {}
    }

    static class BadCron {
        @PostboxSchedule(name = "broken", cron = "61 * * * *")
        void run() {}
    }

    @Configuration(proxyBeanMethods = false)
    static class TickerConfig {
        @Bean
        Ticker ticker() {
            return new Ticker();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class ReportsConfig {
        @Bean
        Reports reports() {
            return new Reports();
        }
    }

    private final DataSource dataSource = TestDatabase.create();

    @AfterEach
    void dropDatabase() {
        TestDatabase.drop(dataSource);
    }

    private ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        BootAutoConfigurations.DATA_SOURCE_TRANSACTION_MANAGER,
                        BootAutoConfigurations.TRANSACTION,
                        PostboxAutoConfiguration.class,
                        PostboxScheduleAutoConfiguration.class,
                        PostboxMetricsAutoConfiguration.class))
                .withBean("dataSource", DataSource.class, () -> dataSource, d -> d.setDestroyMethodName(""))
                .withPropertyValues("postbox.schema.initialize=never", "postbox.transaction-mode=optional");
    }

    private static Map<String, ScheduleView> stored(PostboxScheduleAdmin admin) {
        return admin.schedules(0).stream().collect(Collectors.toMap(ScheduleView::name, Function.identity()));
    }

    @Test
    void annotationsAndPropertiesAreUpsertedAtStartUp() {
        runner().withUserConfiguration(ReportsConfig.class, PostboxTestHelperConfiguration.class)
                .withPropertyValues(
                        "postbox.worker.enabled=false",
                        // overrides the annotation of the same name
                        "postbox.schedules.nightly-report.zone=America/New_York",
                        "postbox.schedules.nightly-report.overlap=skip-if-running",
                        // declared by properties only
                        "postbox.schedules.purge-sessions.cron=0 */5 * * *",
                        "postbox.schedules.purge-sessions.kind=purge",
                        "postbox.schedules.purge-sessions.payload={\"olderThan\": \"P1D\"}",
                        "postbox.schedules.purge-sessions.missed-fires=all",
                        "postbox.schedules.purge-sessions.dst-gap=skip",
                        // switched off
                        "postbox.schedules.cleanup.enabled=false")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context).doesNotHaveBean(ScheduleMaterializerLifecycle.class);
                    Map<String, ScheduleView> stored = stored(context.getBean(PostboxScheduleAdmin.class));
                    assertThat(stored).containsOnlyKeys("hourly-report", "nightly-report", "purge-sessions");

                    ScheduleView hourly = stored.get("hourly-report");
                    assertThat(hourly.cron()).isEqualTo("@hourly");
                    assertThat(hourly.kind()).isEqualTo("build-report");
                    assertThat(hourly.zone()).isIn("Z", "UTC");
                    assertThat(hourly.queue()).isEqualTo("default");
                    assertThat(hourly.paused()).isFalse();
                    assertThat(hourly.nextFireAt()).isAfter(Instant.now().minusSeconds(5));

                    ScheduleView nightly = stored.get("nightly-report");
                    assertThat(nightly.zone()).isEqualTo("America/New_York");
                    assertThat(nightly.queue()).isEqualTo("reports");
                    assertThat(nightly.kind()).isEqualTo("build-report");
                    assertThat(nightly.overlapPolicy()).isEqualTo("SKIP_IF_RUNNING");

                    ScheduleView purge = stored.get("purge-sessions");
                    assertThat(purge.kind()).isEqualTo("purge");
                    assertThat(purge.missedFirePolicy()).isEqualTo("ALL");
                    assertThat(purge.dstGapPolicy()).isEqualTo("SKIP");
                    assertThat(new JdbcTemplate(dataSource)
                                    .queryForObject(
                                            "SELECT payload->>'olderThan' FROM outbox_schedule WHERE name = ?",
                                            String.class,
                                            "purge-sessions"))
                            .isEqualTo("P1D");

                    // the plain method handles its schedule's default kind
                    context.getBean(dev.postbox.Outbox.class)
                            .enqueue(dev.postbox.JobRequest.ofJson("schedule:cleanup", "{}"));
                    PostboxTestHelper helper = context.getBean(PostboxTestHelper.class);
                    assertThat(helper.runDueJobs()).isEqualTo(1);
                    helper.assertNotEnqueued("schedule:cleanup");
                });
    }

    @Test
    void disablingAStoredScheduleByPropertyPausesIt() {
        runner().withUserConfiguration(ReportsConfig.class)
                .withPropertyValues("postbox.worker.enabled=false")
                .run(context -> assertThat(stored(context.getBean(PostboxScheduleAdmin.class)))
                        .containsKey("cleanup"));
        runner().withUserConfiguration(ReportsConfig.class)
                .withPropertyValues("postbox.worker.enabled=false", "postbox.schedules.cleanup.enabled=false")
                .run(context -> assertThat(stored(context.getBean(PostboxScheduleAdmin.class))
                                .get("cleanup")
                                .paused())
                        .isTrue());
    }

    @Test
    void aOneSecondScheduleFiresJobsThatItsMethodReceivesWithMetrics() {
        runner().withUserConfiguration(TickerConfig.class)
                .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
                .withPropertyValues("postbox.worker.poll-interval=100ms", "postbox.scheduler.poll-interval=200ms")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context).hasSingleBean(ScheduleMaterializerLifecycle.class);
                    assertThat(context.getBean(ScheduleMaterializerLifecycle.class)
                                    .isRunning())
                            .isTrue();
                    Ticker ticker = context.getBean(Ticker.class);
                    await().atMost(Duration.ofSeconds(20)).until(() -> ticker.firedAt.size() >= 3);

                    // one job per fire instant, each with its fire key, one second apart
                    assertThat(ticker.firedAt).doesNotHaveDuplicates();
                    assertThat(ticker.fireKeys).allMatch(k -> k.startsWith("tick@"));
                    List<Instant> instants =
                            ticker.firedAt.stream().map(Instant::parse).sorted().toList();
                    assertThat(Duration.between(instants.get(0), instants.get(1)))
                            .isEqualTo(Duration.ofSeconds(1));

                    MeterRegistry registry = context.getBean(MeterRegistry.class);
                    Counter fires = registry.find(PostboxMetrics.SCHEDULE_FIRES)
                            .tag("schedule", "tick")
                            .counter();
                    assertThat(fires).isNotNull();
                    assertThat(fires.count()).isGreaterThanOrEqualTo(3);
                    Timer lag = registry.find(PostboxMetrics.SCHEDULE_LAG)
                            .tag("schedule", "tick")
                            .timer();
                    assertThat(lag).isNotNull();
                    assertThat(lag.count()).isGreaterThanOrEqualTo(3);
                    assertThat(lag.max(java.util.concurrent.TimeUnit.SECONDS)).isLessThan(5);

                    // history through SQL
                    ScheduleView tick = context.getBean(PostboxScheduleAdmin.class)
                            .schedule("tick", 10)
                            .orElseThrow();
                    assertThat(tick.kind()).isEqualTo("schedule:tick");
                    assertThat(tick.recentFires()).hasSizeGreaterThanOrEqualTo(3);
                    assertThat(tick.recentFires().get(0).fireAt())
                            .isAfterOrEqualTo(tick.recentFires().get(1).fireAt());
                });
    }

    @Test
    void theEndpointListsSchedulesWithHistoryAndPausesAndResumesThem() {
        runner().withUserConfiguration(TickerConfig.class)
                .withConfiguration(AutoConfigurations.of(PostboxEndpointAutoConfiguration.class))
                .withPropertyValues(
                        "management.endpoints.web.exposure.include=postboxschedules",
                        "postbox.admin.write-enabled=true",
                        "postbox.worker.poll-interval=100ms",
                        "postbox.scheduler.poll-interval=200ms")
                .run(context -> {
                    PostboxSchedulesEndpoint endpoint = context.getBean(PostboxSchedulesEndpoint.class);
                    Ticker ticker = context.getBean(Ticker.class);
                    await().atMost(Duration.ofSeconds(20)).until(() -> ticker.firedAt.size() >= 2);

                    List<ScheduleView> list = endpoint.schedules(5, null);
                    assertThat(list).singleElement().satisfies(tick -> {
                        assertThat(tick.name()).isEqualTo("tick");
                        assertThat(tick.paused()).isFalse();
                        assertThat(tick.nextFireAt()).isNotNull();
                        assertThat(tick.recentFires()).isNotEmpty().hasSizeLessThanOrEqualTo(5);
                        assertThat(tick.recentFires().get(0).jobId()).isPositive();
                    });

                    WebEndpointResponse<Map<String, Object>> paused =
                            endpoint.paused("tick", true, null, SecurityContext.NONE);
                    assertThat(paused.getStatus()).isEqualTo(WebEndpointResponse.STATUS_OK);
                    assertThat(paused.getBody()).containsEntry("paused", true).containsEntry("changed", true);
                    PostboxScheduleAdmin admin = context.getBean(PostboxScheduleAdmin.class);
                    assertThat(admin.schedule("tick", 0).orElseThrow().paused()).isTrue();

                    // no new fires while paused: the pause waited for the row lock of any pass in flight
                    int firesWhilePaused = admin.schedule("tick", 100)
                            .orElseThrow()
                            .recentFires()
                            .size();
                    await().during(Duration.ofMillis(2500))
                            .atMost(Duration.ofSeconds(5))
                            .until(() -> admin.schedule("tick", 100)
                                            .orElseThrow()
                                            .recentFires()
                                            .size()
                                    == firesWhilePaused);

                    WebEndpointResponse<Map<String, Object>> resumed =
                            endpoint.paused("tick", false, null, SecurityContext.NONE);
                    assertThat(resumed.getStatus()).isEqualTo(WebEndpointResponse.STATUS_OK);
                    assertThat(admin.schedule("tick", 0).orElseThrow().paused()).isFalse();
                    await().atMost(Duration.ofSeconds(10))
                            .until(() -> admin.schedule("tick", 100)
                                            .orElseThrow()
                                            .recentFires()
                                            .size()
                                    > firesWhilePaused);

                    assertThat(endpoint.paused("nope", true, null, SecurityContext.NONE)
                                    .getStatus())
                            .isEqualTo(WebEndpointResponse.STATUS_NOT_FOUND);
                    assertThatThrownBy(() -> endpoint.schedules(MAX_SCHEDULE_HISTORY + 1, null))
                            .isInstanceOf(InvalidEndpointRequestException.class)
                            .hasMessageContaining("between 0 and " + MAX_SCHEDULE_HISTORY);
                });
    }

    @Test
    void scheduleWritesAreRefusedUnlessWriteEnabled() {
        runner().withUserConfiguration(TickerConfig.class)
                .withConfiguration(AutoConfigurations.of(PostboxEndpointAutoConfiguration.class))
                .withPropertyValues(
                        "management.endpoints.web.exposure.include=postboxschedules", "postbox.worker.enabled=false")
                .run(context -> {
                    PostboxSchedulesEndpoint endpoint = context.getBean(PostboxSchedulesEndpoint.class);
                    WebEndpointResponse<Map<String, Object>> response =
                            endpoint.paused("tick", true, null, SecurityContext.NONE);
                    assertThat(response.getStatus()).isEqualTo(PostboxEndpoint.STATUS_FORBIDDEN);
                    assertThat(context.getBean(PostboxScheduleAdmin.class)
                                    .schedule("tick", 0)
                                    .orElseThrow()
                                    .paused())
                            .isFalse();
                });
    }

    @Test
    void theMaterialiserFollowsTheWorkerUnlessSetExplicitly() {
        runner().withPropertyValues("postbox.worker.enabled=false")
                .run(context -> assertThat(context).doesNotHaveBean(ScheduleMaterializerLifecycle.class));
        runner().withPropertyValues("postbox.worker.enabled=false", "postbox.scheduler.enabled=true")
                .run(context -> assertThat(context).hasSingleBean(ScheduleMaterializerLifecycle.class));
        runner().withPropertyValues("postbox.scheduler.enabled=false")
                .run(context -> assertThat(context).doesNotHaveBean(ScheduleMaterializerLifecycle.class));
    }

    @Test
    void anInvalidCronFailsTheStartUpNamingScheduleExpressionAndProblem() {
        runner().withPropertyValues("postbox.worker.enabled=false", "postbox.schedules.bad.cron=0 25 * * *")
                .run(context -> {
                    assertThat(context).hasFailed();
                    Throwable root = rootCause(context.getStartupFailure());
                    assertThat(root).isInstanceOf(InvalidScheduleException.class);
                    assertThat(root.getMessage())
                            .contains("Schedule 'bad'", "'0 25 * * *'", "25")
                            .contains("postbox.schedules.bad.*");
                });
        runner().withUserConfiguration(BadCronConfig.class)
                .withPropertyValues("postbox.worker.enabled=false")
                .run(context -> {
                    assertThat(context).hasFailed();
                    Throwable root = rootCause(context.getStartupFailure());
                    assertThat(root).isInstanceOf(InvalidScheduleException.class);
                    assertThat(root.getMessage())
                            .contains("Schedule 'broken'", "'61 * * * *'")
                            .contains("@PostboxSchedule(name = \"broken\") on bean 'badCron'");
                });
    }

    @Test
    void anUnknownZoneFailsTheStartUp() {
        runner().withPropertyValues(
                        "postbox.worker.enabled=false",
                        "postbox.schedules.mars.cron=@daily",
                        "postbox.schedules.mars.zone=Mars/Olympus_Mons")
                .run(context -> {
                    assertThat(context).hasFailed();
                    Throwable root = rootCause(context.getStartupFailure());
                    assertThat(root).isInstanceOf(InvalidScheduleException.class);
                    assertThat(root.getMessage()).contains("Schedule 'mars'", "unknown time zone 'Mars/Olympus_Mons'");
                });
    }

    @Test
    void aScheduleWithoutCronFailsTheStartUp() {
        runner().withPropertyValues("postbox.worker.enabled=false", "postbox.schedules.nothing.kind=x")
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(rootCause(context.getStartupFailure()).getMessage())
                            .contains("Schedule 'nothing'", "postbox.schedules.nothing.cron");
                });
    }

    @Test
    void theFireListenerHookSeesEveryCreatedJob() {
        List<String> seen = new CopyOnWriteArrayList<>();
        runner().withUserConfiguration(ReportsConfig.class)
                .withBean(ScheduleMaterializer.FireListener.class, () -> (name, fireAt, at, jobId) -> seen.add(name))
                .withPropertyValues("postbox.worker.enabled=false", "postbox.scheduler.enabled=true")
                .run(context -> {
                    new JdbcTemplate(dataSource)
                            .update("UPDATE outbox_schedule SET next_fire_at = date_trunc('hour', now())"
                                    + " WHERE name = 'hourly-report'");
                    ScheduleMaterializer materializer =
                            context.getBean(ScheduleMaterializerLifecycle.class).materializer();
                    // this call or the running materialiser's next pass, whichever locks the row first
                    materializer.materializeAllDue();
                    await().atMost(Duration.ofSeconds(5)).until(() -> !seen.isEmpty());
                    await().during(Duration.ofMillis(1500))
                            .atMost(Duration.ofSeconds(3))
                            .until(() -> seen.size() == 1);
                    assertThat(seen).containsExactly("hourly-report");
                });
    }

    @Configuration(proxyBeanMethods = false)
    static class BadCronConfig {
        @Bean
        BadCron badCron() {
            return new BadCron();
        }
    }

    /** The InvalidScheduleException in the chain, else the root cause. */
    private static Throwable rootCause(Throwable t) {
        Throwable root = t;
        while (root.getCause() != null && !(root instanceof InvalidScheduleException)) {
            root = root.getCause();
        }
        return root;
    }
}
