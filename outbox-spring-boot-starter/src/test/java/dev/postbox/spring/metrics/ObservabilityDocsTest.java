package dev.postbox.spring.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.postbox.QueueStats;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
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
        new PostboxQueueMetrics(
                        () -> List.of(new QueueStats("mail", 1, 1, 1, Duration.ofSeconds(3), 1, false)),
                        registry,
                        Duration.ofSeconds(10))
                .refresh();
        Set<String> names = new TreeSet<>();
        for (String line : registry.scrape().split("\n")) {
            if (line.startsWith("postbox_")) {
                names.add(line.split("[{ ]", 2)[0]);
            }
        }
        return names;
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
                        "postbox_queue_depth");
    }
}
