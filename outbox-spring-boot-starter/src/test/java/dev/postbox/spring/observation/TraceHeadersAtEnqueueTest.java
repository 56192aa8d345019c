package dev.postbox.spring.observation;

import static org.assertj.core.api.Assertions.assertThat;

import dev.postbox.JobRequest;
import dev.postbox.Postbox;
import dev.postbox.testing.TestDatabase;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.util.Map;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Which trace context a job stores: the current one (replacing trace headers the request carried,
 * as a fan-out's copied headers), or, without a tracer, the request's own.
 */
class TraceHeadersAtEnqueueTest {

    private static final String OLD = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";

    private final DataSource dataSource = TestDatabase.create();
    private final JdbcTemplate jdbc = new JdbcTemplate(dataSource);
    private final TransactionTemplate tx = new TransactionTemplate(new DataSourceTransactionManager(dataSource));
    private final TestTracing tracing = new TestTracing();

    @AfterEach
    void drop() {
        tracing.close();
        TestDatabase.drop(dataSource);
    }

    private long enqueue(Postbox postbox, JobRequest request) {
        return tx.execute(s -> postbox.outbox().enqueue(request)).jobId();
    }

    private String stored(long id, String header) {
        return jdbc.queryForObject("SELECT headers->>? FROM outbox_job WHERE id = ?", String.class, header, id);
    }

    private JobRequest carryingOldContext() {
        return JobRequest.builder("child")
                .payload(Map.of())
                .header("traceparent", OLD)
                .header("tracestate", "old=1")
                .header("own", "kept")
                .build();
    }

    @Test
    void withATracerTheCurrentContextReplacesTraceHeadersTheRequestCarried() {
        Postbox postbox = Postbox.builder(dataSource)
                .instrumentation(new ObservedPostboxInstrumentation(tracing.registry))
                .build();
        Observation parent = Observation.start("test.parent", tracing.registry);
        long id;
        try (Observation.Scope scope = parent.openScope()) {
            id = enqueue(postbox, carryingOldContext());
        } finally {
            parent.stop();
        }

        SpanData enqueue = tracing.spans.getFinishedSpanItems().stream()
                .filter(s -> s.getName().equals("enqueue child"))
                .findFirst()
                .orElseThrow();
        SpanData parentSpan = tracing.spans.getFinishedSpanItems().stream()
                .filter(s -> s.getName().equals("test.parent"))
                .findFirst()
                .orElseThrow();
        assertThat(enqueue.getParentSpanId()).isEqualTo(parentSpan.getSpanId());
        // Version, trace id, the enqueue span as parent; flags as the tracer sets them (sampled).
        assertThat(stored(id, "traceparent"))
                .startsWith("00-" + parentSpan.getTraceId() + "-" + enqueue.getSpanId() + "-");
        assertThat(parentSpan.getTraceId()).isNotEqualTo(OLD.substring(3, 35));
        assertThat(stored(id, "own")).isEqualTo("kept");
    }

    @Test
    void withoutATracerTheRequestsOwnTraceHeadersAreKept() {
        Postbox postbox = Postbox.builder(dataSource)
                .instrumentation(new ObservedPostboxInstrumentation(ObservationRegistry.create()))
                .build();

        long id = enqueue(postbox, carryingOldContext());

        assertThat(stored(id, "traceparent")).isEqualTo(OLD);
        assertThat(stored(id, "tracestate")).isEqualTo("old=1");
    }
}
