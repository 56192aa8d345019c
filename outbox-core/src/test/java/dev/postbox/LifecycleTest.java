package dev.postbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Issue test 1: every job state is reachable and visible to plain SQL through {@code
 * outbox_job_status}; jobs outlive the engine that was running when they were written.
 */
class LifecycleTest extends DatabaseTest {

    private String state(long id) {
        return jdbc.queryForObject("SELECT state FROM outbox_job_status WHERE id = ?", String.class, id);
    }

    private long enqueue(Outbox outbox, JobRequest.Builder request) {
        return enqueueCommitted(outbox, request.payload(Map.of("n", 1)).build()).jobId();
    }

    @Test
    void everyStateIsReachableAndVisibleWithPlainSql() {
        Postbox producer = Postbox.builder(dataSource).build();
        Outbox outbox = producer.outbox();
        CountDownLatch running = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Postbox worker = track(Postbox.builder(dataSource)
                .handler("ok", job -> {})
                .handler("slow", job -> {
                    running.countDown();
                    if (!release.await(20, TimeUnit.SECONDS)) {
                        throw new IllegalStateException("test never released the job");
                    }
                })
                .handler(HandlerRegistration.of("flaky", job -> {
                            throw new IllegalStateException("try later");
                        })
                        .retryPolicy(RetryPolicy.custom()
                                .base(Duration.ofHours(1))
                                .cap(Duration.ofHours(1))
                                .build()))
                .handler("poison", job -> {
                    throw new PermanentJobFailure("cannot be processed");
                })
                .handler("never", job -> {
                    throw new AssertionError("an expired or cancelled job ran");
                })
                .config(fastConfig().build())
                .build());

        long scheduled = enqueue(outbox, JobRequest.builder("never").delay(Duration.ofHours(1)));
        long pending = enqueue(outbox, JobRequest.builder("never").queue("unserved"));
        long cancelled = enqueue(outbox, JobRequest.builder("never").delay(Duration.ofHours(1)));
        long expired = enqueue(
                outbox, JobRequest.builder("never").expiresAt(Instant.now().minusSeconds(60)));
        assertThat(state(scheduled)).isEqualTo("scheduled");
        assertThat(state(pending)).isEqualTo("pending");
        assertThat(state(expired)).as("before any worker saw it").isEqualTo("pending");
        assertThat(producer.admin().cancel(cancelled)).isTrue();
        assertThat(state(cancelled)).isEqualTo("cancelled");

        long done = enqueue(outbox, JobRequest.builder("ok"));
        long retry = enqueue(outbox, JobRequest.builder("flaky"));
        long dead = enqueue(outbox, JobRequest.builder("poison"));
        long slow = enqueue(outbox, JobRequest.builder("slow"));
        worker.start();

        await().atMost(Duration.ofSeconds(10)).until(() -> running.getCount() == 0);
        await().atMost(Duration.ofSeconds(10))
                .until(() -> state(done).equals("done")
                        && state(retry).equals("retry")
                        && state(dead).equals("dead")
                        && state(expired).equals("expired"));
        assertThat(state(slow)).isEqualTo("running");
        release.countDown();
        await().atMost(Duration.ofSeconds(10)).until(() -> state(slow).equals("done"));

        Map<Long, String> expected = Map.of(
                scheduled, "scheduled",
                pending, "pending",
                cancelled, "cancelled",
                expired, "expired",
                done, "done",
                retry, "retry",
                dead, "dead",
                slow, "done");
        Map<Long, String> seen = new ConcurrentHashMap<>();
        jdbc.query("SELECT id, state FROM outbox_job_status", rs -> {
            seen.put(rs.getLong("id"), rs.getString("state"));
        });
        assertThat(seen).isEqualTo(expected);
        assertThat(count("SELECT count(*) FROM outbox_job_status"))
                .as("each job exactly once")
                .isEqualTo(8);

        Map<String, Object> retried = jdbc.queryForMap(
                "SELECT attempts, last_error, run_at > now() AS later FROM outbox_job_status WHERE id = ?", retry);
        assertThat(retried).containsEntry("attempts", 1).containsEntry("later", true);
        assertThat((String) retried.get("last_error")).contains("try later");
        assertThat(jdbc.queryForObject("SELECT last_error FROM outbox_job_status WHERE id = ?", String.class, dead))
                .contains("cannot be processed");
    }

    @Test
    void jobsOutliveTheEngineThatWasRunningWhenTheyWereWritten() {
        Postbox producer = Postbox.builder(dataSource).build();
        ConcurrentLinkedQueue<Long> ranOnA = new ConcurrentLinkedQueue<>();
        Postbox a = track(Postbox.builder(dataSource)
                .handler("work", job -> ranOnA.add(job.id()))
                .config(fastConfig().workerId("engine-a").build())
                .build());
        a.start();
        long before = enqueueCommitted(producer.outbox(), JobRequest.of("work", Map.of("n", 0)))
                .jobId();
        await().atMost(Duration.ofSeconds(10)).until(() -> state(before).equals("done"));
        a.stop();

        // Written while no engine runs: they wait in the table, visible as pending.
        List<Long> waiting = new ArrayList<>();
        for (int i = 1; i <= 5; i++) {
            waiting.add(enqueueCommitted(producer.outbox(), JobRequest.of("work", Map.of("n", i)))
                    .jobId());
        }
        assertThat(waiting).allSatisfy(id -> assertThat(state(id)).isEqualTo("pending"));
        assertThat(ranOnA).containsExactly(before);

        Map<Long, Integer> ranOnB = new ConcurrentHashMap<>();
        Postbox b = track(Postbox.builder(dataSource)
                .handler("work", job -> ranOnB.merge(job.id(), 1, Integer::sum))
                .config(fastConfig().workerId("engine-b").build())
                .build());
        b.start();

        await().atMost(Duration.ofSeconds(10))
                .until(() -> waiting.stream().allMatch(id -> state(id).equals("done")));
        assertThat(ranOnB)
                .containsOnlyKeys(waiting)
                .allSatisfy((id, runs) -> assertThat(runs).isOne());
        assertThat(ranOnA).containsExactly(before);
        assertThat(count("SELECT count(*) FROM outbox_job")).isZero();
    }

    private static Set<Thread> nonDaemonPostboxThreads() {
        Set<Thread> threads = new HashSet<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.isAlive() && !t.isDaemon() && t.getName().startsWith("postbox-")) {
                threads.add(t);
            }
        }
        return threads;
    }

    /**
     * Issue 11: an application that only runs jobs has no other thread that keeps its JVM alive, so
     * the running engine holds one non-daemon thread, and lets it go in {@code stop()}.
     */
    @Test
    void aRunningEngineHoldsExactlyOneNonDaemonThreadUntilItStops() {
        Set<Thread> before = nonDaemonPostboxThreads();
        Postbox engine =
                track(Postbox.builder(dataSource).config(fastConfig().build()).build());

        engine.start();
        Set<Thread> held = nonDaemonPostboxThreads();
        held.removeAll(before);
        assertThat(held).extracting(Thread::getName).containsExactly("postbox-dispatcher");

        engine.stop();
        assertThat(held)
                .allSatisfy(t -> assertThat(t.isAlive())
                        .as("%s after stop()", t.getName())
                        .isFalse());
    }
}
