package dev.postbox.spring.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.postbox.QueueStats;
import dev.postbox.http.AttemptResult;
import dev.postbox.http.DeliveryOutcome;
import dev.postbox.http.FailureCause;
import dev.postbox.http.signing.WebhookSecret;
import dev.postbox.http.webhook.Endpoint;
import dev.postbox.http.webhook.WebhookListener;
import dev.postbox.spring.http.PostboxHttpMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The Grafana dashboard and the Prometheus alert rules under {@code docs/observability} may only use
 * metric names that the code really exports: every meter is registered on a {@link
 * PrometheusMeterRegistry} and the names of its scrape are compared with the names in the files.
 */
class ObservabilityDocsTest {

    private static final Pattern METRIC = Pattern.compile("\\bpostbox_[a-z0-9_]+");

    /** Names in the Prometheus scrape after every listener event and a queue poll. */
    static Set<String> exportedNames() {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        PostboxMetricsListener listener = new PostboxMetricsListener(registry, true);
        var job = PostboxMetricsListenerTest.job("mail", "send", 1, 3);
        listener.enqueued("mail", "send", true);
        listener.claimed("mail", 1);
        listener.completed(job, Duration.ofMillis(5));
        listener.failed(job, new IllegalStateException(), Duration.ofSeconds(1));
        listener.dead(job, "x");
        listener.snoozed(job, Duration.ofSeconds(1));
        listener.unknownKind(job);
        listener.staleToken(1, "complete");
        listener.rescued(1, 1);
        listener.rescuedUnstarted(1);
        new PostboxQueueMetrics(
                        () -> List.of(new QueueStats("mail", 1, 1, 1, Duration.ofSeconds(3), 1, false)),
                        registry,
                        Duration.ofSeconds(10))
                .refresh();
        webhookEvents(registry);
        Set<String> names = new TreeSet<>();
        for (String line : registry.scrape().split("\n")) {
            if (line.startsWith("postbox_")) {
                names.add(line.split("[{ ]", 2)[0]);
            }
        }
        return names;
    }

    /** Every webhook delivery event and an endpoint poll, on the starter's {@link PostboxHttpMetrics}. */
    private static void webhookEvents(PrometheusMeterRegistry registry) {
        Endpoint endpoint = Endpoint.builder("billing", "https://billing.example.com/hooks")
                .secret(WebhookSecret.generate())
                .build();
        PostboxHttpMetrics http = new PostboxHttpMetrics(
                registry, () -> List.of(endpoint), () -> Map.of("billing", 0.5), Duration.ofSeconds(10));
        http.refresh();
        http.attempted(
                PostboxMetricsListenerTest.job("default", "postbox.webhook", 1, 3),
                "billing",
                new AttemptResult(
                        DeliveryOutcome.DONE,
                        FailureCause.NONE,
                        200,
                        null,
                        Map.of(),
                        "",
                        false,
                        Duration.ofMillis(5),
                        "203.0.113.1",
                        null,
                        1));
        http.throttled("billing", Duration.ofMillis(100));
        http.rateLowered("billing", 0.5, Instant.now());
        http.linedUp("billing", 100);
        http.endpointDisabled("billing", WebhookListener.DisableCause.GONE, "410");
        http.fannedOut("invoice.paid", 1, 2);
    }

    static Path observabilityDocs() {
        Path dir = Path.of("").toAbsolutePath();
        while (dir != null) {
            Path docs = dir.resolve("docs").resolve("observability");
            if (Files.isDirectory(docs)) {
                return docs;
            }
            dir = dir.getParent();
        }
        throw new IllegalStateException(
                "docs/observability not found above " + Path.of("").toAbsolutePath());
    }

    static Set<String> referencedNames(Path docs) throws IOException {
        Set<String> names = new TreeSet<>();
        try (Stream<Path> files = Files.walk(docs)) {
            for (Path file : files.filter(Files::isRegularFile)
                    .filter(f -> f.toString().matches(".*\\.(json|ya?ml)$"))
                    .toList()) {
                Matcher m = METRIC.matcher(Files.readString(file));
                while (m.find()) {
                    names.add(m.group());
                }
            }
        }
        return names;
    }

    @Test
    void dashboardAndAlertsUseOnlyExportedMetricNames() throws IOException {
        Set<String> exported = exportedNames();
        Set<String> referenced = referencedNames(observabilityDocs());
        assertThat(referenced).as("metric names in docs/observability").isNotEmpty();
        assertThat(exported).as("names exported by the code").containsAll(referenced);
    }

    @Test
    void theOnCallSignalsAreCovered() throws IOException {
        assertThat(referencedNames(observabilityDocs()))
                .contains(
                        "postbox_queue_oldest_age_seconds",
                        "postbox_dlq_depth",
                        "postbox_jobs_stale_tokens_total",
                        "postbox_jobs_claimed_total",
                        "postbox_jobs_failed_total",
                        "postbox_job_duration_seconds_bucket",
                        "postbox_queue_depth",
                        "postbox_http_endpoint_disabled",
                        "postbox_http_deliveries_total",
                        "postbox_http_rate_factor");
    }
}
