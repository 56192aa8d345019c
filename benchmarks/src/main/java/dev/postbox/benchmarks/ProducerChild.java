package dev.postbox.benchmarks;

import com.zaxxer.hikari.HikariDataSource;
import dev.postbox.JobRequest;
import dev.postbox.Outbox;
import dev.postbox.Postbox;
import java.nio.file.Path;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.SynchronizedHistogram;

/**
 * The steady state's producers in their own JVM: {@code connections} threads, each with its own
 * connection, commit business transactions (one {@code bench_order} row plus one intent through
 * {@code outbox.enqueue}) on a fixed schedule of {@code rate} per second, for the warm-up and then
 * the measured seconds. Postbox here only enqueues (its engine is not started; its notifier wakes
 * the engines in the other JVMs). Writes the commit stamps ({@link TimeStamps}) to {@code file}.
 *
 * <p>With mode {@value #BARE} (scenario floor-steady) the same threads write the intent as a bare row
 * into {@link FloorQueue}'s table instead, and one more connection sends a coalesced {@code NOTIFY}
 * after commits, at most one per {@value FloorQueue#NOTIFY_INTERVAL_MS} ms, as Postbox's notifier
 * does: the floor of the producer side.
 *
 * <p>Arguments: jdbc-url rate warmup-seconds seconds connections file [mode: {@value #POSTBOX} or
 * {@value #BARE}]. On {@code go} it starts; the
 * schedule ends on time even when the rate is out of reach. After its result it waits for {@code
 * stop}, so that its JVM and its backends can still be measured.
 */
public final class ProducerChild {

    static final String APPLICATION = "bench-producer";
    static final String KIND = "order-placed";
    static final String POSTBOX = "postbox";
    static final String BARE = "bare";

    private ProducerChild() {}

    public static void main(String[] args) throws Exception {
        String url = args[0];
        int rate = Integer.parseInt(args[1]);
        int warmupSeconds = Integer.parseInt(args[2]);
        int seconds = Integer.parseInt(args[3]);
        int connections = Integer.parseInt(args[4]);
        Path file = Path.of(args[5]);
        boolean bare = args.length > 6 && args[6].equals(BARE);
        int total = rate * (warmupSeconds + seconds);
        long[] committedAt = new long[total];
        // two more connections than producers: Postbox's notification sender and commit watcher
        try (HikariDataSource ds = Db.fixedPool(url, connections + 2, APPLICATION)) {
            Outbox outbox = bare
                    ? null
                    : Postbox.builder(ds)
                            .config(Fixtures.engineConfig())
                            .build()
                            .outbox();
            FloorQueue.Notifier notifier = bare ? FloorQueue.Notifier.start(ds) : null;
            ChildJvm.ready("");
            ChildJvm.awaitCommand("go");
            AtomicInteger next = new AtomicInteger();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            Histogram txMicros = new SynchronizedHistogram(60_000_000L, 3);
            long t0 = System.nanoTime() + 100_000_000L;
            double interval = 1e9 / rate;
            long warmupEnd = t0 + TimeUnit.SECONDS.toNanos(warmupSeconds);
            long stopAt = t0 + TimeUnit.SECONDS.toNanos(warmupSeconds + seconds + 2);
            List<Thread> threads = new ArrayList<>();
            for (int p = 0; p < connections; p++) {
                threads.add(new Thread(
                        () -> {
                            try (Connection c = ds.getConnection()) {
                                c.setAutoCommit(false);
                                while (failure.get() == null) {
                                    int seq = next.getAndIncrement();
                                    if (seq >= total || System.nanoTime() > stopAt) {
                                        return;
                                    }
                                    long target = t0 + (long) (seq * interval);
                                    long wait;
                                    while ((wait = target - System.nanoTime()) > 0) {
                                        LockSupport.parkNanos(wait);
                                    }
                                    long begin = System.nanoTime();
                                    long order = Orders.insert(c, seq);
                                    if (outbox != null) {
                                        outbox.enqueue(c, JobRequest.of(KIND, Map.of("seq", seq, "orderId", order)));
                                        c.commit();
                                    } else {
                                        FloorQueue.insert(c, seq, order);
                                        c.commit();
                                        notifier.committed();
                                    }
                                    long end = System.nanoTime();
                                    committedAt[seq] = end;
                                    if (end >= warmupEnd) {
                                        txMicros.recordValue((end - begin) / 1000);
                                    }
                                }
                            } catch (Throwable e) {
                                failure.compareAndSet(null, e);
                            }
                        },
                        "producer-" + p));
            }
            threads.forEach(Thread::start);
            for (Thread t : threads) {
                t.join();
            }
            if (notifier != null) {
                notifier.close();
            }
            TimeStamps.write(file, committedAt);
            Map<String, Object> r = new LinkedHashMap<>();
            r.put("askedRate", rate);
            r.put("connections", connections);
            r.put("warmupEndNanos", warmupEnd);
            r.put("businessTxP50Ms", StartLatency.ms(txMicros, 50));
            r.put("businessTxP99Ms", StartLatency.ms(txMicros, 99));
            r.put("failure", failure.get() == null ? null : String.valueOf(failure.get()));
            ChildJvm.result(r);
            ChildJvm.awaitCommand("stop"); // connections stay open until the harness has read their CPU time
        }
        System.exit(0);
    }

    /** Reads {@code "seq":N} from a job's payload without a JSON parser. */
    static int seq(String json) {
        int i = json.indexOf("\"seq\"");
        i = json.indexOf(':', i) + 1;
        while (json.charAt(i) == ' ') {
            i++;
        }
        int n = 0;
        while (i < json.length() && Character.isDigit(json.charAt(i))) {
            n = n * 10 + (json.charAt(i++) - '0');
        }
        return n;
    }
}
