package dev.postbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class OrderingKeyTest extends DatabaseTest {

    record Step(String key, int seq) {}

    @Test
    void jobsSharingAKeyRunOneAtATimeInEnqueueOrder() {
        int keys = 50;
        int perKey = 100;
        Postbox producer = Postbox.builder(dataSource).build();
        List<JobRequest> all = new ArrayList<>();
        for (int seq = 0; seq < perKey; seq++) {
            for (int k = 0; k < keys; k++) {
                all.add(JobRequest.builder("step")
                        .payload(new Step("key-" + k, seq))
                        .orderingKey("key-" + k)
                        .build());
            }
        }
        for (int from = 0; from < all.size(); from += 1000) {
            List<JobRequest> batch = all.subList(from, Math.min(all.size(), from + 1000));
            tx.executeWithoutResult(s -> producer.outbox().enqueueAll(batch));
        }
        Map<String, List<Integer>> seen = new ConcurrentHashMap<>();
        Map<String, AtomicInteger> running = new ConcurrentHashMap<>();
        AtomicInteger overlaps = new AtomicInteger();
        track(Postbox.builder(dataSource)
                        .handler("step", job -> {
                            Step step = job.payload(Step.class);
                            if (running.computeIfAbsent(step.key(), k -> new AtomicInteger())
                                            .incrementAndGet()
                                    > 1) {
                                overlaps.incrementAndGet();
                            }
                            seen.computeIfAbsent(step.key(), k -> Collections.synchronizedList(new ArrayList<>()))
                                    .add(step.seq());
                            running.get(step.key()).decrementAndGet();
                        })
                        .config(fastConfig().concurrency(8).claimBatchSize(64).build())
                        .build())
                .start();

        await().atMost(Duration.ofSeconds(90)).until(() -> count("SELECT count(*) FROM outbox_job") == 0);

        assertThat(overlaps).hasValue(0);
        assertThat(seen).hasSize(keys);
        List<Integer> expected = new ArrayList<>();
        for (int i = 0; i < perKey; i++) {
            expected.add(i);
        }
        seen.forEach((key, order) -> assertThat(order).as(key).containsExactlyElementsOf(expected));
    }

    @Test
    void aKeysNextJobIsClaimedWhenItsPredecessorFinishesNotAtTheNextPoll() {
        List<Integer> order = Collections.synchronizedList(new ArrayList<>());
        Postbox postbox = track(Postbox.builder(dataSource)
                .handler("step", job -> order.add(job.payload(Step.class).seq()))
                // nothing but a finished predecessor can wake the engine in time
                .config(fastConfig().pollInterval(Duration.ofMinutes(5)).build())
                .build());
        postbox.start();

        tx.executeWithoutResult(s -> {
            for (int seq = 0; seq < 5; seq++) {
                postbox.outbox()
                        .enqueue(JobRequest.builder("step")
                                .payload(new Step("k", seq))
                                .orderingKey("k")
                                .build());
            }
        });

        // the commit wakes the engine for the first job; each finished job must wake it for the next
        await().atMost(Duration.ofSeconds(30)).until(() -> order.size() == 5);
        assertThat(order).containsExactly(0, 1, 2, 3, 4);
    }

    @Test
    void aFailingHeadBlocksOnlyItsOwnKey() {
        Postbox postbox = track(Postbox.builder(dataSource)
                .handler("step", job -> {
                    Step step = job.payload(Step.class);
                    if (step.key().equals("blocked") && step.seq() == 0) {
                        throw new IllegalStateException("head fails");
                    }
                })
                .build());
        tx.executeWithoutResult(s -> {
            for (String key : List.of("blocked", "free")) {
                for (int seq = 0; seq < 3; seq++) {
                    postbox.outbox()
                            .enqueue(JobRequest.builder("step")
                                    .payload(new Step(key, seq))
                                    .orderingKey(key)
                                    .build());
                }
            }
        });

        for (int i = 0; i < 5; i++) {
            postbox.runDueJobs();
        }

        assertThat(jdbc.queryForList("SELECT payload->>'seq' FROM outbox_job ORDER BY id", String.class))
                .containsExactly("0", "1", "2");
        assertThat(count("SELECT count(*) FROM outbox_job WHERE ordering_key = 'free'"))
                .isZero();
    }

    private JobRequest step(String key, int seq) {
        return JobRequest.builder("step")
                .payload(new Step(key, seq))
                .orderingKey(key)
                .build();
    }

    private List<String> waitingSeqs() {
        return jdbc.queryForList(
                "SELECT payload->>'seq' FROM outbox_job WHERE sort_at = 'infinity' ORDER BY id", String.class);
    }

    @Test
    void aJobBehindALiveJobOfItsKeyWaitsOutsideTheClaimUntilThatJobLeaves() {
        List<Integer> order = Collections.synchronizedList(new ArrayList<>());
        Postbox postbox = track(Postbox.builder(dataSource)
                .handler("step", job -> order.add(job.payload(Step.class).seq()))
                .config(fastConfig().claimBatchSize(1).build())
                .build());
        // one batch (one statement per row in one transaction) and one more transaction
        tx.executeWithoutResult(s -> postbox.outbox().enqueueAll(List.of(step("k", 0), step("k", 1))));
        enqueueCommitted(postbox.outbox(), step("k", 2));
        enqueueCommitted(postbox.outbox(), step("other", 0));

        // the key's head and the other key's only job are in claim order; its successors wait
        assertThat(waitingSeqs()).containsExactly("1", "2");

        // each finished job gives its key's next one its claim order back: one pass runs them all
        assertThat(postbox.runDueJobs()).isEqualTo(4);
        assertThat(count("SELECT count(*) FROM outbox_job")).isZero();
        assertThat(order).containsSubsequence(0, 1, 2);
    }

    @Test
    void aWaitingJobWhoseRunAtOrPriorityMovesKeepsWaiting() {
        Postbox postbox = track(Postbox.builder(dataSource)
                .handler("step", job -> {})
                .config(fastConfig().build())
                .build());
        enqueueCommitted(postbox.outbox(), step("k", 0));
        enqueueCommitted(postbox.outbox(), step("k", 1));
        assertThat(waitingSeqs()).containsExactly("1");

        // what an operator's "run now" or a priority change does to the row
        jdbc.update("UPDATE outbox_job SET run_at = now() - interval '1 hour' WHERE payload->>'seq' = '1'");
        jdbc.update("UPDATE outbox_job SET priority = 50 WHERE payload->>'seq' = '1'");

        assertThat(waitingSeqs()).containsExactly("1");
        // and a job that is not waiting gets its claim order from the new values
        jdbc.update("UPDATE outbox_job SET run_at = timestamptz '2030-01-01', priority = 10"
                + " WHERE payload->>'seq' = '0'");
        assertThat(jdbc.queryForObject(
                        "SELECT sort_at = timestamptz '2030-01-01' - interval '10 seconds' FROM outbox_job"
                                + " WHERE payload->>'seq' = '0'",
                        Boolean.class))
                .isTrue();
    }

    @Test
    void aDeadLetteredOrCancelledHeadLetsItsNextJobIn() {
        Postbox postbox = track(Postbox.builder(dataSource)
                .handler("step", job -> {
                    throw new IllegalStateException("fails");
                })
                .build());
        enqueueCommitted(
                postbox.outbox(),
                JobRequest.builder("step")
                        .payload(new Step("k", 0))
                        .orderingKey("k")
                        .maxAttempts(1)
                        .build());
        enqueueCommitted(postbox.outbox(), step("k", 1));
        enqueueCommitted(postbox.outbox(), step("k", 2));
        assertThat(waitingSeqs()).containsExactly("1", "2");

        postbox.runDueJobs(); // the head's one attempt fails: a dead letter
        assertThat(postbox.admin().deadLetterCount()).isEqualTo(1);
        assertThat(waitingSeqs()).containsExactly("2");

        long next = jdbc.queryForObject("SELECT id FROM outbox_job WHERE payload->>'seq' = '1'", Long.class);
        assertThat(postbox.admin().cancel(next)).isTrue();
        assertThat(waitingSeqs()).as("cancelled: the last job is next").isEmpty();
    }

    @Test
    void keysOfDifferentTenantsDoNotWaitForEachOther() {
        Postbox postbox = track(Postbox.builder(dataSource).build());
        enqueueCommitted(postbox.outbox(), step("k", 0));
        enqueueCommitted(
                postbox.outbox(),
                JobRequest.builder("step")
                        .payload(new Step("k", 1))
                        .orderingKey("k")
                        .tenant("acme")
                        .build());
        enqueueCommitted(postbox.outbox(), step("k", 2));

        assertThat(waitingSeqs()).containsExactly("2");
    }

    @Test
    void aJobLeftWaitingWithNoPredecessorIsLetInByTheRescuer() {
        Postbox postbox = track(Postbox.builder(dataSource).build());
        enqueueCommitted(postbox.outbox(), step("k", 0));
        enqueueCommitted(postbox.outbox(), step("k", 1));
        // what the race leaves: the predecessor's deletion did not see its successor's enqueue
        jdbc.update("ALTER TABLE outbox_job DISABLE TRIGGER outbox_job_next_of_key");
        jdbc.update("DELETE FROM outbox_job WHERE payload->>'seq' = '0'");
        jdbc.update("ALTER TABLE outbox_job ENABLE TRIGGER outbox_job_next_of_key");
        assertThat(waitingSeqs()).containsExactly("1");

        postbox.rescueExpiredLeases();

        assertThat(waitingSeqs()).isEmpty();
        assertThat(jdbc.queryForObject(
                        "SELECT sort_at = run_at - priority * interval '1 second' FROM outbox_job", Boolean.class))
                .as("its claim order is the one it had before it waited")
                .isTrue();
    }

    @Test
    void aClaimDoesNotReadTheJobsWaitingForTheirKeys() throws Exception {
        Postbox postbox = track(Postbox.builder(dataSource).build());
        // 50 keys whose heads run, 20 waiting successors each, and 100 unordered jobs due behind them
        List<JobRequest> ordered = new ArrayList<>();
        for (int seq = 0; seq < 21; seq++) {
            for (int k = 0; k < 50; k++) {
                ordered.add(step("key-" + k, seq));
            }
        }
        tx.executeWithoutResult(s -> postbox.outbox().enqueueAll(ordered));
        jdbc.update("UPDATE outbox_job SET state = 'running', lease_until = now() + interval '1 hour',"
                + " lease_token = 1 WHERE payload->>'seq' = '0'");
        List<JobRequest> unordered = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            unordered.add(JobRequest.builder("step").payload(new Step(null, i)).build());
        }
        tx.executeWithoutResult(s -> postbox.outbox().enqueueAll(unordered));
        assertThat(waitingSeqs()).hasSize(1_000);

        tools.jackson.databind.JsonNode plan;
        try (java.sql.Connection c = dataSource.getConnection()) {
            plan = tools.jackson.databind.json.JsonMapper.builder()
                    .build()
                    .readTree(new dev.postbox.internal.ClaimStore(JsonCodec.jackson())
                            .explainClaim(c, JobRequest.DEFAULT_QUEUE, 100, "ANALYZE, FORMAT JSON"))
                    .get(0)
                    .get("Plan");
        }
        assertThat(plan.get("Actual Rows").asDouble())
                .as("claimed: the unordered jobs")
                .isEqualTo(100);
        assertThat(plan.findValues("Rows Removed by Filter"))
                .as("rows the claim read and dropped (a waiting successor would be one): %s", plan)
                .allMatch(n -> n.asDouble() == 0);
    }
}
