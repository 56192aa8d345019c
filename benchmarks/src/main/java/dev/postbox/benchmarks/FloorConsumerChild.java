package dev.postbox.benchmarks;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.postgresql.PGConnection;

/**
 * The floor's consumer in its own JVM (scenario floor-steady): one connection in {@code LISTEN
 * floor_queue}; on a notification (or after {@value #POLL_MS} ms without one) it claims rows with
 * {@code FOR UPDATE SKIP LOCKED} in batches of {@value #BATCH}, stamps each row's "handler start"
 * when it reads it, deletes the batch and commits, until a claim comes back short. Its connection is
 * named {@value #APPLICATION} in PostgreSQL.
 *
 * <p>Arguments: jdbc-url stamps-capacity stamps-file. Prints ready, runs on {@code go}, stops on
 * {@code stop}, writes the start stamps and its counts.
 */
public final class FloorConsumerChild {

    static final String APPLICATION = "bench-floor-consumer";
    static final int BATCH = 500;
    static final int POLL_MS = 200;

    private FloorConsumerChild() {}

    public static void main(String[] args) throws Exception {
        String url = args[0];
        long[] startedAt = new long[Integer.parseInt(args[1])];
        Path file = Path.of(args[2]);
        Properties props = new Properties();
        props.setProperty("ApplicationName", APPLICATION);
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong completed = new AtomicLong();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        try (Connection c = DriverManager.getConnection(url, props)) {
            try (Statement s = c.createStatement()) {
                s.execute("LISTEN " + FloorQueue.CHANNEL);
            }
            c.setAutoCommit(false);
            PGConnection pg = c.unwrap(PGConnection.class);
            ChildJvm.ready("");
            ChildJvm.awaitCommand("go");
            Thread consumer = new Thread(
                    () -> {
                        try {
                            while (!stop.get()) {
                                int n;
                                do {
                                    n = FloorQueue.claimAndDelete(c, BATCH, payload -> {
                                        long now = System.nanoTime();
                                        int seq = ProducerChild.seq(payload);
                                        if (seq < startedAt.length && startedAt[seq] == 0) {
                                            startedAt[seq] = now;
                                        }
                                    });
                                    completed.addAndGet(n);
                                } while (n == BATCH && !stop.get());
                                pg.getNotifications(POLL_MS);
                            }
                        } catch (Throwable e) {
                            failure.compareAndSet(null, e);
                        }
                    },
                    "floor-consumer");
            consumer.start();
            ChildJvm.awaitCommand("stop");
            stop.set(true);
            consumer.join();
            TimeStamps.write(file, startedAt);
            Map<String, Object> r = new LinkedHashMap<>();
            r.put("pid", ProcessHandle.current().pid());
            r.put("completed", completed.get());
            r.put("failure", failure.get() == null ? null : String.valueOf(failure.get()));
            ChildJvm.result(r);
        }
        System.exit(0);
    }
}
