package dev.postbox.benchmarks;

import com.zaxxer.hikari.HikariDataSource;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A burn-down by engines in their own JVMs: {@code jobs} no-op jobs inserted in one statement,
 * then drained by {@code engines} {@link EngineChild} processes started together. The clock runs
 * from {@code go} to the last completion any engine committed; CPU is measured over the same span.
 */
final class FleetDrain {

    private static final Logger log = LoggerFactory.getLogger(FleetDrain.class);

    private FleetDrain() {}

    /** The drain's fields: seconds, jobsPerSecond, completedPerEngine, cpu, completed. */
    static Map<String, Object> run(int engines, int jobs) throws Exception {
        HikariDataSource ds = Db.create();
        try {
            Fixtures.insertPending(ds, jobs, "noop");
            try (EngineFleet fleet = EngineFleet.start(ds.getJdbcUrl(), engines, 0);
                    CpuMeter meter = CpuMeter.start(ds.getJdbcUrl(), fleet.pids(), List.of(EngineChild.APPLICATION))) {
                long go = System.nanoTime();
                fleet.go();
                boolean drained =
                        awaitEmpty(ds, TimeUnit.MINUTES.toNanos(Long.getLong("bench.drainTimeoutMinutes", 10)));
                Map<String, Object> cpu = meter.stop(jobs);
                fleet.stop();
                long archived = Fixtures.count(ds, "SELECT count(*) FROM outbox_job_archive WHERE state = 'done'");
                double seconds = (fleet.lastCompletionNanos() - go) / 1e9;
                Map<String, Object> r = new LinkedHashMap<>();
                r.put("engines", engines);
                r.put("jobs", jobs);
                r.put("completed", drained && archived == jobs);
                r.put("archived", archived);
                r.put("seconds", Env.round(seconds, 3));
                r.put("jobsPerSecond", drained && seconds > 0 ? Env.round(jobs / seconds, 1) : null);
                r.put("completedPerEngine", fleet.completedPerEngine());
                r.put("cpu", cpu);
                log.info(
                        "drain by {} engine JVM(s): {} jobs in {} s = {} jobs/s, per engine {}",
                        engines,
                        jobs,
                        r.get("seconds"),
                        r.get("jobsPerSecond"),
                        r.get("completedPerEngine"));
                return r;
            }
        } finally {
            Db.drop(ds);
        }
    }

    /**
     * Polls every 100 ms until {@code outbox_job} is empty (every completion committed); false on
     * timeout. The drain's clock comes from the engines, so the interval only delays the stop. The
     * probe walks the primary key, whose dead entries are marked as such after the first visit,
     * not the heap, where it would step over every deleted row each time.
     */
    static boolean awaitEmpty(HikariDataSource ds, long timeoutNanos) throws Exception {
        return awaitEmpty(ds, "outbox_job", timeoutNanos);
    }

    /** {@link #awaitEmpty(HikariDataSource, long)} for {@code table} (a constant of ours, never input). */
    static boolean awaitEmpty(HikariDataSource ds, String table, long timeoutNanos) throws Exception {
        long deadline = System.nanoTime() + timeoutNanos;
        while (Fixtures.count(ds, "SELECT count(*) FROM (SELECT id FROM " + table + " ORDER BY id LIMIT 1) x") > 0) {
            if (System.nanoTime() > deadline) {
                return false;
            }
            Thread.sleep(100);
        }
        return true;
    }
}
