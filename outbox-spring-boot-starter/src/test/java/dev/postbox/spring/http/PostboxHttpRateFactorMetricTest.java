package dev.postbox.spring.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.postbox.http.signing.WebhookSecret;
import dev.postbox.http.webhook.HttpDeliveryModule;
import dev.postbox.spring.BootAutoConfigurations;
import dev.postbox.spring.PostboxAutoConfiguration;
import dev.postbox.testing.TestDatabase;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * {@value PostboxHttpMetrics#RATE_FACTOR}: the adaptive rate factor of each rate-limited endpoint,
 * read from the bucket table (so it shows cuts made by any instance), recovering at {@code
 * postbox.http.rate-recovery}.
 */
class PostboxHttpRateFactorMetricTest {

    private final DataSource dataSource = TestDatabase.create();

    @AfterEach
    void dropDatabase() {
        TestDatabase.drop(dataSource);
    }

    @Test
    void theGaugeFollowsTheClusterWideFactor() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        BootAutoConfigurations.DATA_SOURCE_TRANSACTION_MANAGER,
                        BootAutoConfigurations.TRANSACTION,
                        BootAutoConfigurations.METRICS,
                        BootAutoConfigurations.SIMPLE_METRICS_EXPORT,
                        BootAutoConfigurations.COMPOSITE_METER_REGISTRY,
                        PostboxAutoConfiguration.class,
                        PostboxHttpAutoConfiguration.class,
                        PostboxHttpMetricsAutoConfiguration.class))
                .withBean("dataSource", DataSource.class, () -> dataSource, d -> d.setDestroyMethodName(""))
                .withPropertyValues(
                        "postbox.schema.initialize=never",
                        "postbox.worker.enabled=false",
                        "postbox.metrics.queue-poll-interval=1h",
                        // a factor cut to 0.4 climbs back by 1 per 10,000 s: steady during the test
                        "postbox.http.secrets.keys.test=MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=",
                        "postbox.http.rate-recovery=10000s",
                        "postbox.http.min-rate-factor=0.05",
                        "postbox.http.endpoints.billing.url=https://billing.example.com/hooks",
                        "postbox.http.endpoints.billing.secrets="
                                + WebhookSecret.generate().serialized(),
                        "postbox.http.endpoints.billing.rate-per-second=50",
                        "postbox.http.endpoints.audit.url=https://audit.example.com/in",
                        "postbox.http.endpoints.audit.secrets="
                                + WebhookSecret.generate().serialized())
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    HttpDeliveryModule.Settings settings =
                            context.getBean(HttpDeliveryModule.class).settings();
                    assertThat(settings.rateRecovery()).isEqualTo(Duration.ofSeconds(10_000));
                    assertThat(settings.minRateFactor()).isEqualTo(0.05);
                    assertThat(settings.maxPermitWait()).isZero();
                    PostboxHttpMetrics metrics = context.getBean(PostboxHttpMetrics.class);
                    MeterRegistry registry = context.getBean(MeterRegistry.class);

                    assertThat(metrics.refresh()).isTrue();
                    assertThat(factor(registry)).isEqualTo(1.0);
                    assertThat(registry.find(PostboxHttpMetrics.RATE_FACTOR)
                                    .tag("endpoint", "audit")
                                    .gauge())
                            .as("an endpoint without a rate limit has no factor")
                            .isNull();

                    // Another instance cut the rate to 0.4 just now.
                    new JdbcTemplate(dataSource)
                            .update("UPDATE outbox_rate_bucket SET rate_factor = 0.4, throttled_at = now(),"
                                    + " throttled_until = now() + interval '6000 seconds' WHERE endpoint = 'billing'");
                    assertThat(metrics.refresh()).isTrue();
                    assertThat(factor(registry)).isCloseTo(0.4, within(0.001));
                });
    }

    private static double factor(MeterRegistry registry) {
        Gauge gauge = registry.find(PostboxHttpMetrics.RATE_FACTOR)
                .tag("endpoint", "billing")
                .gauge();
        assertThat(gauge).isNotNull();
        return gauge.value();
    }
}
