package dev.postbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.postbox.internal.ClaimStore;
import dev.postbox.internal.ClaimedJob;
import dev.postbox.testing.StatementRecorder;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Per-key order is commit order, and a key never runs two jobs at once, whatever the ids and
 * whatever commits when (schema V12, docs/guarantees.md §6).
 */
class CommitOrderTest extends DatabaseTest {

    record Step(String key, int seq) {}

    /** Counts handlers of one key running at the same time, and the order in which each key's jobs ran. */
    static final class Tracker {
        final Map<String, AtomicInteger> running = new ConcurrentHashMap<>();
        final Map<String, List<Integer>> order = new ConcurrentHashMap<>();
        final AtomicInteger overlaps = new AtomicInteger();

        void enter(Step step) {
            if (running.computeIfAbsent(step.key(), k -> new AtomicInteger()).incrementAndGet() > 1) {
                overlaps.incrementAndGet();
            }
            order.computeIfAbsent(step.key(), k -> Collections.synchronizedList(new ArrayList<>()))
                    .add(step.seq());
        }

        void leave(Step step) {
            running.get(step.key()).decrementAndGet();
        }
    }

    private static JobRequest step(String key, int seq) {
        return JobRequest.builder("step")
                .payload(new Step(key, seq))
                .orderingKey(key)
                .build();
    }

    private static JobRequest step(String queue, String key, int seq) {
        return JobRequest.builder("step")
                .queue(queue)
                .payload(new Step(key, seq))
                .orderingKey(key)
                .build();
    }

    /**
     * The overlap of issue 30: job A of key k is enqueued in a transaction held open, job B of k
     * (a higher id) commits and runs; when A commits, A must not start while B runs. (Before V12 A had
     * no lower-id job of its key live, and was claimed at once.)
     */
    @Test
    void aJobThatCommitsWhileALaterIdOfItsKeyRunsWaitsForIt() throws Exception {
        Tracker tracker = new Tracker();
        CountDownLatch bStarted = new CountDownLatch(1);
        CountDownLatch releaseB = new CountDownLatch(1);
        Postbox postbox = track(Postbox.builder(dataSource)
                .handler("step", job -> {
                    Step step = job.payload(Step.class);
                    tracker.enter(step);
                    try {
                        if (step.seq() == 1) {
                            bStarted.countDown();
                            releaseB.await(60, TimeUnit.SECONDS);
                        }
                    } finally {
                        tracker.leave(step);
                    }
                })
                .handler("probe", job -> {})
                .config(fastConfig().concurrency(4).build())
                .build());
        postbox.start();

        long a;
        try (Connection held = dataSource.getConnection()) {
            held.setAutoCommit(false);
            a = postbox.outbox().enqueue(held, step("k", 0)).jobId();
            long b = enqueueCommitted(postbox.outbox(), step("k", 1)).jobId();
            assertThat(a).isLessThan(b);
            assertThat(bStarted.await(30, TimeUnit.SECONDS)).as("B runs").isTrue();
            held.commit();
        }
        // A job committed after A and run to its end: the engine has claimed since A became visible.
        long probe = enqueueCommitted(
                        postbox.outbox(),
                        JobRequest.builder("probe").payload(Map.of()).build())
                .jobId();
        await().atMost(Duration.ofSeconds(30))
                .until(() -> count("SELECT count(*) FROM outbox_job_archive WHERE id = ?", probe) == 1);

        assertThat(tracker.overlaps).as("handlers of one key at the same time").hasValue(0);
        assertThat(count("SELECT count(*) FROM outbox_job WHERE id = ? AND state = 'pending'", a))
                .as("A is not claimed while B of its key runs")
                .isOne();
        releaseB.countDown();
        await().atMost(Duration.ofSeconds(30)).until(() -> count("SELECT count(*) FROM outbox_job") == 0);
        assertThat(tracker.overlaps).as("handlers of one key at the same time").hasValue(0);
        assertThat(tracker.order.get("k")).as("commit order: B committed first").containsExactly(1, 0);
    }

    /** Transaction 1 enqueues first (the lower id) and commits second: its job runs second. */
    @Test
    void jobsOfAKeyRunInTheOrderTheirTransactionsCommittedNotInIdOrder() throws Exception {
        Tracker tracker = new Tracker();
        Postbox postbox = track(Postbox.builder(dataSource)
                .handler("step", job -> {
                    Step step = job.payload(Step.class);
                    tracker.enter(step);
                    tracker.leave(step);
                })
                .config(fastConfig().build())
                .build());
        try (Connection first = dataSource.getConnection()) {
            first.setAutoCommit(false);
            postbox.outbox().enqueue(first, step("k", 1)); // lower id, commits second
            postbox.outbox().enqueue(first, step("k", 2)); // same transaction: after it, in id order
            enqueueCommitted(postbox.outbox(), step("k", 0));
            first.commit();
        }
        enqueueCommitted(postbox.outbox(), step("k", 3));

        postbox.start();
        await().atMost(Duration.ofSeconds(30)).until(() -> count("SELECT count(*) FROM outbox_job") == 0);
        assertThat(tracker.order.get("k")).containsExactly(0, 1, 2, 3);
    }

    /**
     * Issue 30's producers: 8 threads, 4 accounts (one key each), each business transaction enqueues
     * its event first and then locks its account row to take the next version (the order of the
     * business changes, recorded by the producer itself), 10 % roll back. The engine runs meanwhile.
     * No key may run two handlers at once, and each key's events must run in version order.
     */
    @Test
    void concurrentProducersThatEnqueueThenLockGetCommitOrderAndNoOverlap() throws Exception {
        jdbc.execute("CREATE TABLE account (id text PRIMARY KEY, version bigint NOT NULL)");
        jdbc.execute("CREATE TABLE account_event (job_id bigint PRIMARY KEY, account text, version bigint)");
        try {
            for (int k = 0; k < 4; k++) {
                jdbc.update("INSERT INTO account VALUES (?, 0)", "account-" + k);
            }
            Map<String, List<Long>> ran = new ConcurrentHashMap<>();
            Map<String, AtomicInteger> running = new ConcurrentHashMap<>();
            AtomicInteger overlaps = new AtomicInteger();
            track(Postbox.builder(dataSource)
                            .handler("event", job -> {
                                String key = job.orderingKey().orElseThrow();
                                if (running.computeIfAbsent(key, x -> new AtomicInteger())
                                                .incrementAndGet()
                                        > 1) {
                                    overlaps.incrementAndGet();
                                }
                                ran.computeIfAbsent(key, x -> Collections.synchronizedList(new ArrayList<>()))
                                        .add(job.id());
                                Thread.yield();
                                running.get(key).decrementAndGet();
                            })
                            .config(fastConfig().concurrency(8).build())
                            .build())
                    .start();
            Postbox producer = Postbox.builder(dataSource).build();
            int threads = 8;
            int perThread = 150;
            ExecutorService pool = Executors.newFixedThreadPool(threads);
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                done.add(pool.submit(() -> {
                    for (int i = 0; i < perThread; i++) {
                        String account =
                                "account-" + ThreadLocalRandom.current().nextInt(4);
                        try (Connection c = dataSource.getConnection()) {
                            c.setAutoCommit(false);
                            long id = producer.outbox()
                                    .enqueue(
                                            c,
                                            JobRequest.builder("event")
                                                    .payload(Map.of("account", account))
                                                    .orderingKey(account)
                                                    .build())
                                    .jobId();
                            long version;
                            try (PreparedStatement ps = c.prepareStatement(
                                    "UPDATE account SET version = version + 1 WHERE id = ? RETURNING version")) {
                                ps.setString(1, account);
                                try (ResultSet rs = ps.executeQuery()) {
                                    rs.next();
                                    version = rs.getLong(1);
                                }
                            }
                            try (PreparedStatement ps =
                                    c.prepareStatement("INSERT INTO account_event VALUES (?, ?, ?)")) {
                                ps.setLong(1, id);
                                ps.setString(2, account);
                                ps.setLong(3, version);
                                ps.executeUpdate();
                            }
                            if (ThreadLocalRandom.current().nextInt(10) == 0) {
                                c.rollback();
                            } else {
                                c.commit();
                            }
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get(120, TimeUnit.SECONDS);
            }
            pool.shutdown();
            await().atMost(Duration.ofSeconds(120)).until(() -> count("SELECT count(*) FROM outbox_job") == 0);

            Map<Long, Long> versions = new ConcurrentHashMap<>();
            jdbc.query("SELECT job_id, version FROM account_event", rs -> {
                versions.put(rs.getLong(1), rs.getLong(2));
            });
            int inversions = 0;
            int jobs = 0;
            for (List<Long> ids : ran.values()) {
                long last = 0;
                for (long id : ids) {
                    long version = versions.get(id);
                    if (version < last) {
                        inversions++;
                    }
                    last = Math.max(last, version);
                    jobs++;
                }
            }
            assertThat(jobs).as("every committed event ran once").isEqualTo(versions.size());
            assertThat(overlaps).as("handlers of one key at the same time").hasValue(0);
            assertThat(inversions)
                    .as("events run before an event committed earlier")
                    .isZero();
        } finally {
            jdbc.execute("DROP TABLE account_event");
            jdbc.execute("DROP TABLE account");
        }
    }

    /**
     * A key's next job starts on another engine as soon as its predecessor finishes, not at that
     * engine's next poll (5 minutes). The two jobs share a key but not a queue, and each engine
     * serves one queue, so only engine B can run the successor and only a wake-up can start it.
     */
    @Test
    void aKeysNextJobStartsOnAnotherEngineWhenItsPredecessorFinishes() throws Exception {
        CountDownLatch releaseFirst = new CountDownLatch(1);
        List<Integer> order = Collections.synchronizedList(new ArrayList<>());
        StatementRecorder bStatements = new StatementRecorder(dataSource);
        Postbox a = track(Postbox.builder(dataSource)
                .handler("step", job -> {
                    releaseFirst.await(60, TimeUnit.SECONDS);
                    order.add(job.payload(Step.class).seq());
                })
                .config(fastConfig()
                        .queues("a")
                        .pollInterval(Duration.ofMinutes(5))
                        .build())
                .build());
        Postbox b = track(Postbox.builder(bStatements)
                .handler("step", job -> order.add(job.payload(Step.class).seq()))
                .config(fastConfig()
                        .queues("b")
                        .pollInterval(Duration.ofMinutes(5))
                        .build())
                .build());
        a.start();
        b.start();
        await().atMost(Duration.ofSeconds(30)).until(() -> tenantReads(bStatements) > 0); // B's first claim
        bStatements.clear();

        tx.executeWithoutResult(s -> a.outbox().enqueueAll(List.of(step("a", "k", 0), step("b", "k", 1))));
        // B was woken by the enqueue and found its job waiting for the key; A runs the first one
        await().atMost(Duration.ofSeconds(30)).until(() -> tenantReads(bStatements) > 0);
        await().atMost(Duration.ofSeconds(30))
                .until(() -> count("SELECT count(*) FROM outbox_job WHERE state = 'running'") == 1);
        assertThat(order).isEmpty();

        releaseFirst.countDown();
        await().atMost(Duration.ofSeconds(60)).until(() -> order.size() == 2);
        assertThat(order).containsExactly(0, 1);
    }

    /**
     * The upgrade: jobs live when V12 is applied keep their id order (key_seq 0), and jobs enqueued
     * after it run after them.
     */
    @Test
    void jobsLiveAtTheUpgradeKeepTheirIdOrderAndRunBeforeLaterOnes() throws Exception {
        com.zaxxer.hikari.HikariDataSource old = dev.postbox.testing.TestDatabase.createEmpty();
        try {
            org.springframework.jdbc.core.JdbcTemplate oldJdbc = new org.springframework.jdbc.core.JdbcTemplate(old);
            for (SchemaInstaller.Migration m : SchemaInstaller.migrations()) {
                if (m.version() < 12) {
                    oldJdbc.execute(m.sql());
                }
            }
            for (int seq = 0; seq < 3; seq++) {
                for (String key : List.of("k", "m")) {
                    oldJdbc.update(
                            "INSERT INTO outbox_job (kind, ordering_key, payload) VALUES ('step', ?, ?::jsonb)",
                            key,
                            "{\"key\": \"" + key + "\", \"seq\": " + seq + "}");
                }
            }
            // the broken state of before V12: a later id of key m running while an earlier one waits
            oldJdbc.update("UPDATE outbox_job SET state = 'running', lease_token = 1, lease_until = now() + interval"
                    + " '1 hour' WHERE payload->>'key' = 'm' AND payload->>'seq' = '2'");

            assertThat(new SchemaInstaller(old).install())
                    .startsWith(12)
                    .containsExactlyElementsOf(SchemaInstaller.migrations().stream()
                            .map(SchemaInstaller.Migration::version)
                            .filter(v -> v >= 12)
                            .toList());
            assertThat(oldJdbc.queryForList("SELECT DISTINCT key_seq FROM outbox_job", Long.class))
                    .containsExactly(0L);

            Tracker tracker = new Tracker();
            Postbox postbox = Postbox.builder(old)
                    .handler("step", job -> {
                        Step step = job.payload(Step.class);
                        tracker.enter(step);
                        tracker.leave(step);
                    })
                    .config(fastConfig().build())
                    .build();
            try {
                new org.springframework.transaction.support.TransactionTemplate(
                                new org.springframework.jdbc.datasource.DataSourceTransactionManager(old))
                        .executeWithoutResult(s -> postbox.outbox().enqueue(step("k", 3)));
                assertThat(postbox.runDueJobs())
                        .as("key m is blocked by its running job")
                        .isEqualTo(4);
                assertThat(tracker.order.get("k")).containsExactly(0, 1, 2, 3);
                assertThat(tracker.order).doesNotContainKey("m");
                oldJdbc.update("DELETE FROM outbox_job WHERE state = 'running'");
                assertThat(postbox.runDueJobs()).isEqualTo(2);
                assertThat(tracker.order.get("m")).containsExactly(0, 1);
            } finally {
                postbox.stop();
            }
        } finally {
            dev.postbox.testing.TestDatabase.drop(old);
        }
    }

    private static long tenantReads(StatementRecorder recorder) {
        return recorder.statements().stream()
                .filter(s -> s.contains("WITH RECURSIVE"))
                .count();
    }

    /**
     * An ordered job rescued from an expired lease may still be running on its old holder: its key
     * stays blocked for one more lease period (the job held, its token cleared) before it is settled
     * and can run again, so no second job of the key starts meanwhile.
     */
    @Test
    void aRescuedOrderedJobHoldsItsKeyWhileItsOldHolderMayStillRun() throws Exception {
        Postbox postbox = track(Postbox.builder(dataSource)
                .config(fastConfig().visibilityTimeout(Duration.ofMinutes(5)).build())
                .build());
        long first = enqueueCommitted(postbox.outbox(), step("k", 0)).jobId();
        long second = enqueueCommitted(postbox.outbox(), step("k", 1)).jobId();
        ClaimStore claims = new ClaimStore(JsonCodec.jackson());
        try (Connection c = dataSource.getConnection()) {
            List<ClaimedJob> old = claims.claim(c, JobRequest.DEFAULT_QUEUE, 10, "old-holder", Duration.ofSeconds(30));
            assertThat(old).extracting(ClaimedJob::id).containsExactly(first);
            jdbc.update("UPDATE outbox_job SET lease_until = now() - interval '1 second' WHERE id = ?", first);

            postbox.rescueExpiredLeases();
            assertThat(jdbc.queryForObject(
                            "SELECT state || ' ' || (lease_token IS NULL) || ' ' || (lease_until > now() + interval '4 minutes')"
                                    + " FROM outbox_job WHERE id = ?",
                            String.class,
                            first))
                    .as("held: still running, its old claim fenced off, for one lease period")
                    .isEqualTo("running true true");
            assertThat(claims.claim(c, JobRequest.DEFAULT_QUEUE, 10, "new-holder", Duration.ofSeconds(30)))
                    .as("nothing of the key may start while the old holder may still run")
                    .isEmpty();

            jdbc.update("UPDATE outbox_job SET lease_until = now() - interval '1 second' WHERE id = ?", first);
            postbox.rescueExpiredLeases();
            assertThat(claims.claim(c, JobRequest.DEFAULT_QUEUE, 10, "new-holder", Duration.ofSeconds(30)))
                    .as("after the hold the rescued job runs again, still ahead of its key")
                    .extracting(ClaimedJob::id)
                    .containsExactly(first);
            assertThat(count("SELECT count(*) FROM outbox_job WHERE id = ? AND state = 'pending'", second))
                    .isOne();
        }
    }
}
