package dev.postbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.postbox.PostboxInstrumentation.AttemptOutcome;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class InstrumentationTest extends DatabaseTest {

    /** Adds a {@code traceparent} header at enqueue and records every attempt with its thread. */
    private static final class Recording implements PostboxInstrumentation {
        final List<String> enqueued = Collections.synchronizedList(new ArrayList<>());
        final List<String> attempts = Collections.synchronizedList(new ArrayList<>());

        @Override
        public List<EnqueueResult> enqueue(List<JobRequest> requests, EnqueueWrite write) {
            List<JobRequest> traced = requests.stream()
                    .map(r -> r.toBuilder()
                            .header("traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")
                            .build())
                    .toList();
            List<EnqueueResult> results = write.write(traced);
            results.forEach(r -> enqueued.add(r.jobId() + (r.created() ? " created" : " duplicate")));
            return results;
        }

        @Override
        public Attempt attemptStarted(Job job) {
            Thread started = Thread.currentThread();
            return (outcome, error) -> attempts.add(job.kind() + "#" + job.attempt() + " " + outcome
                    + (error == null ? "" : " " + error.getClass().getSimpleName())
                    + (Thread.currentThread() == started ? "" : " on another thread"));
        }
    }

    private static RetryPolicy fast(int attempts) {
        return RetryPolicy.custom()
                .base(Duration.ofMillis(1))
                .cap(Duration.ofMillis(1))
                .maxAttempts(attempts)
                .build();
    }

    private void runUntilNotLive(Postbox postbox) {
        for (int i = 0; i < 100 && count("SELECT count(*) FROM outbox_job") > 0; i++) {
            postbox.runDueJobs();
            jdbc.update("UPDATE outbox_job SET run_at = now() WHERE state = 'retry'");
        }
    }

    @Test
    void headersAddedAtEnqueueAreStoredWithTheJobAndSeenByItsHandler() {
        Recording recording = new Recording();
        List<String> seen = Collections.synchronizedList(new ArrayList<>());
        Postbox postbox = track(Postbox.builder(dataSource)
                .instrumentation(recording)
                .handler("traced", job -> seen.add(job.headers().get("traceparent")))
                .build());

        EnqueueResult result = enqueueCommitted(
                postbox.outbox(),
                JobRequest.builder("traced")
                        .payload(Map.of())
                        .header("own", "kept")
                        .build());
        EnqueueResult again = enqueueCommitted(
                postbox.outbox(),
                JobRequest.builder("traced")
                        .payload(Map.of())
                        .idempotencyKey("k")
                        .build());
        enqueueCommitted(
                postbox.outbox(),
                JobRequest.builder("traced")
                        .payload(Map.of())
                        .idempotencyKey("k")
                        .build());

        assertThat(recording.enqueued)
                .containsExactly(result.jobId() + " created", again.jobId() + " created", again.jobId() + " duplicate");
        assertThat(jdbc.queryForObject(
                        "SELECT headers->>'own' || ' ' || (headers->>'traceparent') FROM outbox_job WHERE id = ?",
                        String.class,
                        result.jobId()))
                .isEqualTo("kept 00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01");
        assertThat(postbox.runDueJobs()).isEqualTo(2);
        assertThat(seen).containsOnly("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01");
        assertThat(recording.attempts).containsExactly("traced#1 SUCCESS", "traced#1 SUCCESS");
    }

    @Test
    void everyAttemptEndsOnItsOwnThreadWithTheOutcomeTheEngineWrote() {
        Recording recording = new Recording();
        AtomicInteger calls = new AtomicInteger();
        Postbox postbox = track(Postbox.builder(dataSource)
                .instrumentation(recording)
                .handler(HandlerRegistration.of("flaky-then-ok", job -> {
                            if (calls.incrementAndGet() == 1) {
                                throw new IllegalStateException("first attempt fails");
                            }
                        })
                        .retryPolicy(fast(3)))
                .handler(HandlerRegistration.of("always-fails", job -> {
                            throw new IllegalStateException("never works");
                        })
                        .retryPolicy(fast(2)))
                .handler("snoozes", job -> {
                    if (job.headers().containsKey("snoozed-once")) {
                        return;
                    }
                    throw new SnoozeJob("not yet", Duration.ofHours(1));
                })
                .handler(HandlerRegistration.of("in-tx", job -> {}).transactional())
                .handler("refuses", job -> {
                    throw new PermanentJobFailure("bad input");
                })
                .build());

        for (String kind : List.of("flaky-then-ok", "always-fails", "snoozes", "in-tx", "refuses")) {
            enqueueCommitted(postbox.outbox(), JobRequest.of(kind, Map.of()));
        }
        for (int i = 0; i < 20 && count("SELECT count(*) FROM outbox_job WHERE kind <> 'snoozes'") > 0; i++) {
            postbox.runDueJobs();
            jdbc.update("UPDATE outbox_job SET run_at = now() WHERE state = 'retry'");
        }

        Map<String, List<String>> byKind =
                recording.attempts.stream().collect(Collectors.groupingBy(a -> a.substring(0, a.indexOf('#'))));
        assertThat(byKind.get("flaky-then-ok"))
                .containsExactly("flaky-then-ok#1 RETRY IllegalStateException", "flaky-then-ok#2 SUCCESS");
        assertThat(byKind.get("always-fails"))
                .containsExactly(
                        "always-fails#1 RETRY IllegalStateException", "always-fails#2 DEAD IllegalStateException");
        assertThat(byKind.get("snoozes")).containsExactly("snoozes#1 SNOOZED SnoozeJob");
        assertThat(byKind.get("in-tx")).containsExactly("in-tx#1 SUCCESS");
        assertThat(byKind.get("refuses")).containsExactly("refuses#1 DEAD PermanentJobFailure");
        assertThat(AttemptOutcome.LEASE_LOST.tagValue()).isEqualTo("lease-lost");
    }

    @Test
    void anInstrumentationThatThrowsNeverChangesAJobsOutcome() {
        AtomicInteger ran = new AtomicInteger();
        Postbox postbox = track(Postbox.builder(dataSource)
                .instrumentation(new PostboxInstrumentation() {
                    @Override
                    public Attempt attemptStarted(Job job) {
                        if (job.id() % 2 == 0) {
                            throw new IllegalStateException("instrumentation broken at start");
                        }
                        return (outcome, error) -> {
                            throw new IllegalStateException("instrumentation broken at end");
                        };
                    }
                })
                .handler("counted", job -> ran.incrementAndGet())
                .build());
        enqueueCommitted(postbox.outbox(), JobRequest.of("counted", Map.of()));
        enqueueCommitted(postbox.outbox(), JobRequest.of("counted", Map.of()));

        runUntilNotLive(postbox);

        assertThat(ran).hasValue(2);
        assertThat(count("SELECT count(*) FROM outbox_job_archive WHERE state = 'done'"))
                .isEqualTo(2);
    }

    @Test
    void anInstrumentationThatDropsARequestIsRefusedNamingIt() {
        Postbox postbox = track(Postbox.builder(dataSource)
                .instrumentation(new PostboxInstrumentation() {
                    @Override
                    public List<EnqueueResult> enqueue(List<JobRequest> requests, EnqueueWrite write) {
                        return write.write(requests.subList(0, 1));
                    }
                })
                .handler("any", job -> {})
                .build());

        assertThatThrownBy(() -> tx.execute(s -> postbox.outbox()
                        .enqueueAll(List.of(JobRequest.of("any", Map.of()), JobRequest.of("any", Map.of())))))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("returned 1 results for 2 requests");
        assertThat(count("SELECT count(*) FROM outbox_job")).isZero();
    }
}
