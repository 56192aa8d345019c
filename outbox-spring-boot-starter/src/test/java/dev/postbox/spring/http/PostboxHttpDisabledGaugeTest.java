package dev.postbox.spring.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.postbox.http.signing.WebhookSecret;
import dev.postbox.http.webhook.Endpoint;
import dev.postbox.http.webhook.WebhookListener.DisableCause;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * {@value PostboxHttpMetrics#ENDPOINT_DISABLED}: a poll that read the endpoint table before an
 * operator's disable does not overwrite the gauge the disable set (seen as a flaky
 * PostboxHttpIntegrationTest: the poller's stale "enabled" landed right after the disable).
 */
class PostboxHttpDisabledGaugeTest {

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final Endpoint enabled = Endpoint.builder("receiver", "https://receiver.example.com/hooks")
            .secret(WebhookSecret.generate())
            .build();
    private final AtomicReference<Runnable> duringRead = new AtomicReference<>(() -> {});
    private final PostboxHttpMetrics metrics = new PostboxHttpMetrics(
            registry,
            () -> {
                duringRead.getAndSet(() -> {}).run();
                return List.of(enabled);
            },
            Map::of,
            Duration.ofHours(1));

    @Test
    void aDisableDuringAPollsReadIsNotOverwrittenByTheStaleRow() {
        assertThat(metrics.refresh()).isTrue();
        assertThat(gauge()).isZero();

        // The operator's disable commits while the poll is reading the table, which still says enabled.
        duringRead.set(() -> metrics.endpointDisabled("receiver", DisableCause.OPERATOR, "maintenance"));
        assertThat(metrics.refresh()).isTrue();
        assertThat(gauge()).as("the disable, not the stale row").isEqualTo(1.0);

        // The next poll reads after the event: the table is the truth again (here it says enabled).
        assertThat(metrics.refresh()).isTrue();
        assertThat(gauge()).as("the table read after the event").isZero();

        // Without a poll in between, the events alone move the gauge.
        metrics.endpointDisabled("receiver", DisableCause.OPERATOR, "maintenance");
        assertThat(gauge()).isEqualTo(1.0);
        metrics.endpointEnabled("receiver", 0, 0);
        assertThat(gauge()).isZero();
    }

    private double gauge() {
        return registry.get(PostboxHttpMetrics.ENDPOINT_DISABLED)
                .tag("endpoint", "receiver")
                .gauge()
                .value();
    }
}
