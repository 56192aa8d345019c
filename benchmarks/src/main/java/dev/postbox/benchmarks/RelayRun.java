package dev.postbox.benchmarks;

import com.zaxxer.hikari.HikariDataSource;
import dev.postbox.Job;
import dev.postbox.JobRequest;
import dev.postbox.Postbox;
import dev.postbox.PostboxListener;
import dev.postbox.PostboxModule;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntFunction;

/**
 * The relay half of the broker relay scenarios (kafka-relay, amqp-relay, nats-relay): a fresh
 * database, {@code messages} relay jobs enqueued in transactions of 1,000 before the engine starts,
 * then the clock from {@code start()} to the last completion, sampled once a second.
 */
final class RelayRun {

    private RelayRun() {}

    static Map<String, Object> run(Env env, String name, PostboxModule relay, int messages, IntFunction<JobRequest> job)
            throws Exception {
        HikariDataSource ds = Db.create();
        CountDownLatch done = new CountDownLatch(1);
        AtomicLong completed = new AtomicLong();
        AtomicLong failed = new AtomicLong();
        PostboxListener listener = new PostboxListener() {
            @Override
            public void completed(Job j, Duration duration) {
                if (completed.incrementAndGet() == messages) {
                    done.countDown();
                }
            }

            @Override
            public void failed(Job j, Throwable error, Duration retryIn) {
                failed.incrementAndGet();
            }
        };
        try {
            Postbox postbox = Postbox.builder(ds)
                    .config(Fixtures.engineConfig())
                    .listener(listener)
                    .module(relay)
                    .build();
            long e0 = System.nanoTime();
            for (int from = 0; from < messages; from += 1000) {
                List<JobRequest> requests = new ArrayList<>();
                for (int i = from; i < Math.min(messages, from + 1000); i++) {
                    requests.add(job.apply(i));
                }
                try (Connection c = ds.getConnection()) {
                    c.setAutoCommit(false);
                    postbox.outbox().enqueueAll(c, requests);
                    c.commit();
                }
            }
            double enqueueSeconds = (System.nanoTime() - e0) / 1e9;
            Fixtures.execute(ds, "VACUUM ANALYZE outbox_job");
            List<Map<String, Object>> samples = new ArrayList<>();
            long t0 = System.nanoTime();
            postbox.start();
            String failure = null;
            long deadline = t0 + TimeUnit.MINUTES.toNanos(10);
            while (!done.await(1, TimeUnit.SECONDS)) {
                Map<String, Object> sample = new LinkedHashMap<>();
                sample.put("t", Env.round((System.nanoTime() - t0) / 1e9, 1));
                sample.put("completed", completed.get());
                samples.add(sample);
                if (System.nanoTime() > deadline) {
                    failure = "timeout: " + completed.get() + " of " + messages + " completed";
                    break;
                }
            }
            double seconds = (System.nanoTime() - t0) / 1e9;
            postbox.stop();
            Map<String, Object> r = env.result(name, messages, failure == null ? seconds : 0);
            r.put("completed", failure == null);
            r.put("notes", failure);
            r.put("completedJobs", completed.get());
            r.put("failedAttempts", failed.get());
            r.put("enqueueSeconds", Env.round(enqueueSeconds, 3));
            r.put("samples", samples);
            return r;
        } finally {
            Db.drop(ds);
        }
    }

    /** The relay's messages per second against the bare client's, put into {@code r}. */
    static void compare(Map<String, Object> r, int messages, double floorSeconds) {
        double floorRate = messages / floorSeconds;
        Double relayRate = (Double) r.get("jobsPerSecond");
        r.put("messagesPerSecond", relayRate);
        r.put("clientFloorMessagesPerSecond", Env.round(floorRate, 1));
        r.put("clientFloorSeconds", Env.round(floorSeconds, 3));
        r.put("ratioToClientFloor", relayRate == null ? null : Env.round(relayRate / floorRate, 3));
    }
}
