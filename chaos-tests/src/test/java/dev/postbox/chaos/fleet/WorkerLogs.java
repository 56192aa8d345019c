package dev.postbox.chaos.fleet;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * What the workers printed, by the harness's marker conventions: handler starts per job ({@code
 * START <job id> <kind>}), transactions of local handlers that rolled back ({@code ROLLBACK <job id>
 * <tx> <seq> <wall ms>}, per worker incarnation), crash points that fired ({@code CRASHPOINT}), the
 * engine's own stale-token reports ({@code STALE}), the runs of ordered jobs' handlers ({@code KEYRUN
 * <job id> <tenant|-> <key> <seq> <entry ms> <exit ms>}), the hung kinds' runs ({@code HUNGRUN}), and
 * start-up times ({@code READY ...
 * springMs=... uptimeMs=...}).
 */
public final class WorkerLogs {

    /** A local handler's transaction that rolled back: which job, its payload's key, when (wall ms). */
    public record Rollback(long jobId, long tx, long seq, long atMillis) {}

    /** A handler run of a job with an ordering key, as its worker printed it ({@code tenant} "-": the default). */
    public record KeyRun(String worker, long jobId, String tenant, String key, long seq, long startMs, long endMs) {}

    /** A hung kind's handler run ({@code HUNGRUN <job id> <kind> <attempt> <entry ms> <exit ms>}). */
    public record HungRun(String worker, long jobId, String kind, int attempt, long startMs, long endMs) {}

    private final List<KeyRun> keyRuns = new ArrayList<>();
    private final List<HungRun> hungRuns = new ArrayList<>();
    private long[] startedJobs = new long[1 << 16];
    private int[] startedBy = new int[1 << 16];
    private int starts;
    private final List<String> workers = new ArrayList<>();
    private long staleTokens;
    private final Map<String, Long> crashPoints = new TreeMap<>();
    private final List<Long> startMillis = new ArrayList<>();
    private final List<Long> springMillis = new ArrayList<>();
    private final Map<String, List<Rollback>> rollbacks = new HashMap<>();
    private int files;

    public static WorkerLogs read(Path dir) throws IOException {
        WorkerLogs logs = new WorkerLogs();
        List<Path> files;
        try (Stream<Path> list = Files.list(dir)) {
            files = list.filter(p -> p.toString().endsWith(".log")).sorted().toList();
        }
        for (Path file : files) {
            String worker = file.getFileName().toString().replaceFirst("\\.log$", "");
            logs.workers.add(worker);
            try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.ISO_8859_1)) {
                for (String line = in.readLine(); line != null; line = in.readLine()) {
                    logs.parse(worker, line);
                }
            }
            logs.files++;
        }
        return logs;
    }

    private void parse(String worker, String line) {
        if (line.startsWith("START ")) {
            int end = line.indexOf(' ', 6);
            addStart(Long.parseLong(end < 0 ? line.substring(6) : line.substring(6, end)), workers.size() - 1);
        } else if (line.startsWith("ROLLBACK ")) {
            String[] f = line.split(" ");
            rollbacks
                    .computeIfAbsent(worker, w -> new ArrayList<>())
                    .add(new Rollback(
                            Long.parseLong(f[1]), Long.parseLong(f[2]), Long.parseLong(f[3]), Long.parseLong(f[4])));
        } else if (line.startsWith("KEYRUN ")) {
            String[] f = line.split(" ");
            try {
                keyRuns.add(new KeyRun(
                        worker,
                        Long.parseLong(f[1]),
                        f[2],
                        f[3],
                        Long.parseLong(f[4]),
                        Long.parseLong(f[5]),
                        Long.parseLong(f[6].trim())));
            } catch (RuntimeException cutByAKill) {
                // a line cut short by a kill is not a run
            }
        } else if (line.startsWith("HUNGRUN ")) {
            String[] f = line.split(" ");
            try {
                hungRuns.add(new HungRun(
                        worker,
                        Long.parseLong(f[1]),
                        f[2],
                        Integer.parseInt(f[3]),
                        Long.parseLong(f[4]),
                        Long.parseLong(f[5].trim())));
            } catch (RuntimeException cutByAKill) {
                // a line cut short by a kill is not a run
            }
        } else if (line.startsWith("STALE ")) {
            staleTokens++;
        } else if (line.startsWith("CRASHPOINT ")) {
            crashPoints.merge(line.substring(11).split(" ")[0], 1L, Long::sum);
        } else if (line.startsWith("READY ")) {
            value(line, " uptimeMs=", startMillis);
            value(line, " springMs=", springMillis);
        }
    }

    private void addStart(long jobId, int worker) {
        if (starts == startedJobs.length) {
            startedJobs = Arrays.copyOf(startedJobs, starts * 2);
            startedBy = Arrays.copyOf(startedBy, starts * 2);
        }
        startedBy[starts] = worker;
        startedJobs[starts++] = jobId;
    }

    private static void value(String line, String key, List<Long> into) {
        int i = line.indexOf(key);
        if (i >= 0) {
            into.add(Long.parseLong(
                    line.substring(i + key.length()).split(" ")[0].trim()));
        }
    }

    /** Handler starts per job id: {@code [jobId, starts]} pairs in id order. */
    public List<long[]> startsPerJob() {
        long[] ids = Arrays.copyOf(startedJobs, starts);
        Arrays.sort(ids);
        List<long[]> out = new ArrayList<>();
        for (int i = 0; i < ids.length; ) {
            int j = i;
            while (j < ids.length && ids[j] == ids[i]) {
                j++;
            }
            out.add(new long[] {ids[i], j - i});
            i = j;
        }
        return out;
    }

    /** Handler starts per worker incarnation and job: {@code (worker, jobId) -> starts}. */
    public Map<String, Map<Long, Integer>> startsPerWorkerAndJob() {
        Map<String, Map<Long, Integer>> out = new HashMap<>();
        for (int i = 0; i < starts; i++) {
            out.computeIfAbsent(workers.get(startedBy[i]), w -> new HashMap<>()).merge(startedJobs[i], 1, Integer::sum);
        }
        return out;
    }

    /** Every handler run of an ordered job the workers printed. */
    public List<KeyRun> keyRuns() {
        return keyRuns;
    }

    /** Every hung kind's handler run the workers printed. */
    public List<HungRun> hungRuns() {
        return hungRuns;
    }

    public long handlerStarts() {
        return starts;
    }

    public long staleTokens() {
        return staleTokens;
    }

    public Map<String, Long> crashPoints() {
        return crashPoints;
    }

    /** The rolled-back local transactions of one worker incarnation. */
    public List<Rollback> rollbacks(String workerId) {
        return rollbacks.getOrDefault(workerId, List.of());
    }

    public long medianStartMillis() {
        return median(startMillis);
    }

    public long medianSpringMillis() {
        return median(springMillis);
    }

    public int files() {
        return files;
    }

    private static long median(List<Long> values) {
        if (values.isEmpty()) {
            return -1;
        }
        List<Long> sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        return sorted.get(sorted.size() / 2);
    }
}
