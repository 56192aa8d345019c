package dev.postbox.benchmarks;

import com.zaxxer.hikari.HikariDataSource;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Scenario 8: one million pending jobs drained by an engine in a child JVM with a small heap
 * ({@code -Xmx256m}, {@code -XX:+ExitOnOutOfMemoryError}). The child reports its drain time and
 * peak heap use on a result line.
 */
final class Memory {

    private static final Logger log = LoggerFactory.getLogger(Memory.class);

    private Memory() {}

    static Map<String, Object> run(Env env, int jobs, String heap) throws Exception {
        HikariDataSource ds = Db.create();
        try {
            long fill0 = System.nanoTime();
            Fixtures.insertPending(ds, jobs, "noop");
            double fillSeconds = (System.nanoTime() - fill0) / 1e9;
            List<String> options = new ArrayList<>(List.of("-Xmx" + heap));
            if (System.getProperty("bench.runawayRunningRows") == null) {
                options.add("-Dbench.runawayRunningRows=" + Long.MAX_VALUE); // here the heap is the judge
            }
            log.info("memory: {} jobs inserted in {} s; draining in a child JVM with -Xmx{}", jobs, fillSeconds, heap);
            Map<String, Object> childResult = Map.of();
            String failure = null;
            int exit;
            try (ChildJvm child = ChildJvm.start(
                    "memory-child", MemoryChild.class, options, List.of(ds.getJdbcUrl(), Integer.toString(jobs)))) {
                try {
                    childResult = child.awaitResult(Duration.ofMinutes(60));
                } catch (Exception e) {
                    failure = e.getMessage();
                }
                exit = child.exitCode();
            }
            long left = Fixtures.count(ds, "SELECT count(*) FROM outbox_job");
            double seconds = childResult.get("seconds") instanceof Number n ? n.doubleValue() : 0;
            Map<String, Object> r = env.result("memory", jobs, seconds);
            r.put("drain", true);
            r.put("childHeap", heap);
            r.put("childExitCode", exit);
            r.put(
                    "completed",
                    exit == 0
                            && left == 0
                            && failure == null
                            && Boolean.TRUE.equals(childResult.get("drainCompleted")));
            r.put("jobsLeft", left);
            r.put("fillSeconds", Env.round(fillSeconds, 1));
            r.putAll(childResult);
            r.put("scenario", "memory");
            r.put("heapMaxBytes", childResult.get("heapMaxBytes"));
            r.put("notes", "child JVM -Xmx" + heap + ", peak heap used " + childResult.get("peakHeapUsedMiB") + " MiB");
            if (!Boolean.TRUE.equals(r.get("completed"))) {
                r.put("childFailure", failure);
            }
            log.info(
                    "memory: completed {} in {} s, peak heap {} MiB",
                    r.get("completed"),
                    seconds,
                    childResult.get("peakHeapUsedMiB"));
            return r;
        } finally {
            Db.drop(ds);
        }
    }
}
