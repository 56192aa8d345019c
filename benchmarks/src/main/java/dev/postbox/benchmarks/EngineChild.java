package dev.postbox.benchmarks;

import com.zaxxer.hikari.HikariDataSource;
import dev.postbox.Job;
import dev.postbox.Postbox;
import dev.postbox.PostboxConfig;
import dev.postbox.PostboxListener;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One Postbox engine in its own JVM, for the scenarios that run engines apart from the producers
 * or several engines on one database. Handlers: {@code noop} (pre-inserted jobs) and {@code
 * order-placed} (the producers' jobs; it stamps the handler start of the job's sequence number).
 * Its pool ({@code bench.enginePool}, 16) is named {@value #APPLICATION} in PostgreSQL.
 *
 * <p>Arguments: jdbc-url stamps-capacity stamps-file. It builds the engine and prints ready, starts
 * it on {@code go}, stops it on {@code stop}, writes the start stamps and its counts.
 */
public final class EngineChild {

    static final String APPLICATION = "postbox-engine";

    private EngineChild() {}

    public static void main(String[] args) throws Exception {
        String url = args[0];
        long[] startedAt = new long[Integer.parseInt(args[1])];
        Path file = Path.of(args[2]);
        AtomicLong completed = new AtomicLong();
        AtomicLong runs = new AtomicLong();
        AtomicLong lastCompletion = new AtomicLong();
        PostboxConfig config = Fixtures.engineConfig();
        try (HikariDataSource ds = Db.fixedPool(url, Integer.getInteger("bench.enginePool", 16), APPLICATION)) {
            Postbox postbox = Postbox.builder(ds)
                    .config(config)
                    .listener(new PostboxListener() {
                        @Override
                        public void completed(Job job, Duration duration) {
                            lastCompletion.set(System.nanoTime());
                            completed.incrementAndGet();
                        }
                    })
                    .handler("noop", job -> runs.incrementAndGet())
                    .handler(ProducerChild.KIND, job -> {
                        long now = System.nanoTime();
                        int seq = ProducerChild.seq(job.payloadJson());
                        if (seq < startedAt.length && startedAt[seq] == 0) {
                            startedAt[seq] = now;
                        }
                        runs.incrementAndGet();
                    })
                    .build();
            ChildJvm.ready("");
            ChildJvm.awaitCommand("go");
            long started = System.nanoTime();
            postbox.start();
            ChildJvm.awaitCommand("stop");
            postbox.stop();
            TimeStamps.write(file, startedAt);
            Map<String, Object> r = new LinkedHashMap<>();
            r.put("pid", ProcessHandle.current().pid());
            r.put("completed", completed.get());
            r.put("handlerRuns", runs.get());
            r.put("startNanos", started);
            r.put("lastCompletionNanos", lastCompletion.get());
            r.put("config", Fixtures.describe(config));
            ChildJvm.result(r);
        }
        System.exit(0);
    }
}
