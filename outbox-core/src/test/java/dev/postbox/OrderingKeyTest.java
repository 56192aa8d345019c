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
}
