package dev.postbox.benchmarks;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.postbox.PostboxConfig;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.util.LinkedHashMap;
import java.util.Map;

/** The child JVM of the memory scenario: drains the given database and prints one result line. */
public final class MemoryChild {

    private MemoryChild() {}

    public static void main(String[] args) throws Exception {
        String url = args[0];
        long jobs = Long.parseLong(args[1]);
        HikariConfig hc = new HikariConfig();
        hc.setJdbcUrl(url);
        hc.setMaximumPoolSize(16);
        hc.setMinimumIdle(2);
        PostboxConfig config = Fixtures.engineConfig();
        Map<String, Object> r = new LinkedHashMap<>();
        try (HikariDataSource ds = new HikariDataSource(hc)) {
            for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
                pool.resetPeakUsage();
            }
            BurnDown.Drain drain = BurnDown.drain(ds, config, jobs);
            long peak = 0;
            for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
                if (pool.getType() == MemoryType.HEAP) {
                    peak += pool.getPeakUsage().getUsed();
                }
            }
            long gcCount = 0;
            long gcMillis = 0;
            for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
                gcCount += gc.getCollectionCount();
                gcMillis += gc.getCollectionTime();
            }
            r.put("drainCompleted", drain.completed());
            r.put("drainFailure", drain.failure());
            r.put("maxRunningRows", drain.maxRunningRows());
            r.put("seconds", Env.round(drain.seconds(), 3));
            r.put("jobsPerSecond", Env.round(jobs / drain.seconds(), 1));
            r.put("handlerRuns", drain.handlerRuns());
            r.put("heapMaxBytes", Runtime.getRuntime().maxMemory());
            r.put("peakHeapUsedMiB", Env.round(peak / 1048576.0, 1));
            r.put("gcCount", gcCount);
            r.put("gcMillis", gcMillis);
            r.put(
                    "garbageCollector",
                    ManagementFactory.getGarbageCollectorMXBeans().get(0).getName());
            r.put("config", Fixtures.describe(config));
        }
        ChildJvm.result(r);
        System.exit(0);
    }
}
