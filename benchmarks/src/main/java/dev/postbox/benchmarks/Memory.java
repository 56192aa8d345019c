package dev.postbox.benchmarks;

import com.zaxxer.hikari.HikariDataSource;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.json.JsonMapper;

/**
 * Scenario 8: one million pending jobs drained by an engine in a child JVM with a small heap
 * ({@code -Xmx256m}, {@code -XX:+ExitOnOutOfMemoryError}). The child reports its drain time and
 * peak heap use on a result line.
 */
final class Memory {

    private static final Logger log = LoggerFactory.getLogger(Memory.class);

    private Memory() {}

    @SuppressWarnings("unchecked")
    static Map<String, Object> run(Env env, int jobs, String heap) throws Exception {
        HikariDataSource ds = Db.create();
        try {
            long fill0 = System.nanoTime();
            Fixtures.insertPending(ds, jobs, "noop");
            double fillSeconds = (System.nanoTime() - fill0) / 1e9;
            List<String> command = new ArrayList<>();
            command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
            command.add("-Xmx" + heap);
            command.add("-XX:+ExitOnOutOfMemoryError");
            for (String name : System.getProperties().stringPropertyNames()) {
                if (name.startsWith("bench.")) {
                    command.add("-D" + name + "=" + System.getProperty(name));
                }
            }
            if (System.getProperty("bench.runawayRunningRows") == null) {
                command.add("-Dbench.runawayRunningRows=" + Long.MAX_VALUE); // here the heap is the judge
            }
            command.add("-cp");
            command.add(System.getProperty("java.class.path"));
            command.add(MemoryChild.class.getName());
            command.add(ds.getJdbcUrl());
            command.add(Integer.toString(jobs));
            log.info("memory: {} jobs inserted in {} s; draining in a child JVM with -Xmx{}", jobs, fillSeconds, heap);
            Process child =
                    new ProcessBuilder(command).redirectErrorStream(true).start();
            String resultLine = null;
            StringBuilder tail = new StringBuilder();
            try (BufferedReader out =
                    new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = out.readLine()) != null) {
                    if (line.startsWith(MemoryChild.RESULT)) {
                        resultLine = line.substring(MemoryChild.RESULT.length());
                    } else {
                        tail.append(line).append('\n');
                        if (tail.length() > 20_000) {
                            tail.delete(0, tail.length() - 10_000);
                        }
                    }
                }
            }
            if (!child.waitFor(60, TimeUnit.MINUTES)) {
                child.destroyForcibly();
            }
            int exit = child.exitValue();
            long left = Fixtures.count(ds, "SELECT count(*) FROM outbox_job");
            Map<String, Object> childResult =
                    resultLine == null ? Map.of() : JsonMapper.builder().build().readValue(resultLine, Map.class);
            double seconds = childResult.get("seconds") instanceof Number n ? n.doubleValue() : 0;
            Map<String, Object> r = env.result("memory", jobs, seconds);
            r.put("drain", true);
            r.put("childHeap", heap);
            r.put("childExitCode", exit);
            r.put(
                    "completed",
                    exit == 0
                            && left == 0
                            && resultLine != null
                            && Boolean.TRUE.equals(childResult.get("drainCompleted")));
            r.put("jobsLeft", left);
            r.put("fillSeconds", Env.round(fillSeconds, 1));
            r.putAll(childResult);
            r.put("scenario", "memory");
            r.put("heapMaxBytes", childResult.get("heapMaxBytes"));
            r.put("notes", "child JVM -Xmx" + heap + ", peak heap used " + childResult.get("peakHeapUsedMiB") + " MiB");
            if (!Boolean.TRUE.equals(r.get("completed"))) {
                r.put("childOutputTail", tail.toString());
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
