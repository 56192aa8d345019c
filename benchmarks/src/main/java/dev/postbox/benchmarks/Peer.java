package dev.postbox.benchmarks;

import com.github.kagkarlsson.scheduler.Scheduler;
import com.github.kagkarlsson.scheduler.task.helper.OneTimeTask;
import com.github.kagkarlsson.scheduler.task.helper.Tasks;
import com.zaxxer.hikari.HikariDataSource;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Scenario 3: the peer. db-scheduler with its lock-and-fetch polling strategy and 20 threads drains
 * the same number of pre-inserted no-op one-time tasks on the same server. The clock runs from
 * {@code start()} until its table is empty (one-time tasks are deleted on completion).
 */
final class Peer {

    private static final Logger log = LoggerFactory.getLogger(Peer.class);

    private Peer() {}

    static Map<String, Object> run(Env env, int jobs, int threads) throws Exception {
        HikariDataSource ds = Db.createEmpty();
        try {
            Fixtures.execute(ds, ddl());
            try (Connection c = ds.getConnection()) {
                c.setAutoCommit(true);
                try (PreparedStatement ps = c.prepareStatement("INSERT INTO scheduled_tasks"
                        + " (task_name, task_instance, execution_time, picked, version)"
                        + " SELECT 'noop', 'job-' || g, now(), false, 1 FROM generate_series(1, ?) g")) {
                    ps.setInt(1, jobs);
                    ps.executeUpdate();
                }
                Fixtures.execute(c, "VACUUM ANALYZE scheduled_tasks");
            }
            AtomicLong runs = new AtomicLong();
            OneTimeTask<Void> task = Tasks.oneTime("noop").execute((instance, context) -> runs.incrementAndGet());
            double lower = Double.parseDouble(System.getProperty("bench.peerLower", "0.5"));
            double upper = Double.parseDouble(System.getProperty("bench.peerUpper", "3.0"));
            Scheduler scheduler = Scheduler.create(ds, task)
                    .threads(threads)
                    .pollUsingLockAndFetch(lower, upper)
                    .pollingInterval(Duration.ofSeconds(1))
                    .build();
            long t0 = System.nanoTime();
            scheduler.start();
            double seconds;
            try {
                long deadline = System.nanoTime() + Duration.ofMinutes(30).toNanos();
                while (Fixtures.count(ds, "SELECT count(*) FROM scheduled_tasks") > 0) {
                    if (System.nanoTime() > deadline) {
                        throw new IllegalStateException("peer did not finish: " + runs.get() + " runs");
                    }
                    Thread.sleep(runs.get() < jobs ? 200 : 10);
                }
                seconds = (System.nanoTime() - t0) / 1e9;
            } finally {
                scheduler.stop();
            }
            Map<String, Object> r = env.result("peer", jobs, seconds);
            r.put("drain", true);
            r.put("handlerRuns", runs.get());
            r.put("peer", "db-scheduler " + version());
            r.put("threads", threads);
            r.put("pollingStrategy", "lock-and-fetch(" + lower + ", " + upper + ")");
            r.put("notes", "db-scheduler, lock-and-fetch, " + threads + " threads");
            env.peer((Double) r.get("jobsPerSecond"));
            log.info("peer: {} jobs in {} s = {} jobs/s", jobs, seconds, r.get("jobsPerSecond"));
            return r;
        } finally {
            Db.drop(ds);
        }
    }

    static String version() throws IOException {
        try (InputStream in =
                Peer.class.getResourceAsStream("/META-INF/maven/com.github.kagkarlsson/db-scheduler/pom.properties")) {
            if (in == null) {
                return "unknown";
            }
            java.util.Properties p = new java.util.Properties();
            p.load(in);
            return p.getProperty("version", "unknown");
        }
    }

    static String ddl() throws IOException {
        try (InputStream in = Peer.class.getResourceAsStream("/db-scheduler/postgresql.sql")) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
