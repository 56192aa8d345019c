package dev.postbox.benchmarks;

import com.zaxxer.hikari.HikariDataSource;
import java.io.IOException;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** What every result records about the machine and the run, and the floor and peer of this run. */
final class Env {

    private final Path resultsDirectory;
    private final String gitCommit;
    private final boolean gitDirty;
    private final String postgresVersion;
    private Double floorJobsPerSecond;
    private Double peerJobsPerSecond;
    private Integer floorSteadyKneeRate;

    private Env(Path resultsDirectory, String gitCommit, boolean gitDirty, String postgresVersion) {
        this.resultsDirectory = resultsDirectory;
        this.gitCommit = gitCommit;
        this.gitDirty = gitDirty;
        this.postgresVersion = postgresVersion;
    }

    static Env create(Path resultsDirectory) throws SQLException {
        String version;
        HikariDataSource ds = Db.createEmpty();
        try (Connection c = ds.getConnection();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SHOW server_version")) {
            rs.next();
            version = rs.getString(1);
        } finally {
            Db.drop(ds);
        }
        String commit = git("rev-parse", "HEAD");
        String status = git("status", "--porcelain", "--untracked-files=no");
        return new Env(
                resultsDirectory, commit == null ? "unknown" : commit, status != null && !status.isBlank(), version);
    }

    private static String git(String... args) {
        try {
            String[] command = new String[args.length + 1];
            command[0] = "git";
            System.arraycopy(args, 0, command, 1, args.length);
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            String out;
            try (InputStream in = p.getInputStream()) {
                out = new String(in.readAllBytes(), StandardCharsets.UTF_8).trim();
            }
            if (!p.waitFor(10, TimeUnit.SECONDS) || p.exitValue() != 0) {
                return null;
            }
            return out;
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    static double loadAverage() {
        return Math.round(ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage() * 100) / 100.0;
    }

    Path resultsDirectory() {
        return resultsDirectory;
    }

    void floor(double jobsPerSecond) {
        this.floorJobsPerSecond = jobsPerSecond;
    }

    void peer(double jobsPerSecond) {
        this.peerJobsPerSecond = jobsPerSecond;
    }

    /** The knee of floor-steady in this run (0 when no step was within the bound). */
    void floorSteadyKnee(int rate) {
        this.floorSteadyKneeRate = rate;
    }

    /** The knee of floor-steady, when it ran earlier in this invocation; else null. */
    Integer floorSteadyKneeRate() {
        return floorSteadyKneeRate;
    }

    Double floorJobsPerSecond() {
        return floorJobsPerSecond;
    }

    Double peerJobsPerSecond() {
        return peerJobsPerSecond;
    }

    /**
     * A result with the fields every scenario has. Latency fields start as null ("does not apply")
     * and the ratios are filled in by {@link #write} where the scenario is a drain.
     */
    Map<String, Object> result(String scenario, long jobs, double seconds) {
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("scenario", scenario);
        r.put("jobs", jobs);
        r.put("seconds", round(seconds, 3));
        r.put("jobsPerSecond", seconds > 0 ? round(jobs / seconds, 1) : null);
        r.put("p50Ms", null);
        r.put("p99Ms", null);
        r.put("p999Ms", null);
        r.put("floorJobsPerSecond", null);
        r.put("peerJobsPerSecond", null);
        r.put("ratioToFloor", null);
        r.put("ratioToPeer", null);
        r.put("heapMaxBytes", Runtime.getRuntime().maxMemory());
        r.put("cpuCount", Runtime.getRuntime().availableProcessors());
        r.put("postgresVersion", postgresVersion);
        r.put("gitCommit", gitCommit);
        r.put("gitDirty", gitDirty);
        r.put("measuredAt", Instant.now().toString());
        r.put("loadAverageAtEnd", loadAverage());
        r.put("javaVersion", System.getProperty("java.version"));
        return r;
    }

    /** Writes {@code <scenario>.json}, with the floor and peer of this run and the drain ratios. */
    void write(Map<String, Object> result) throws IOException {
        result.put("floorJobsPerSecond", floorJobsPerSecond);
        result.put("peerJobsPerSecond", peerJobsPerSecond);
        Object jps = result.get("jobsPerSecond");
        if (Boolean.TRUE.equals(result.get("drain")) && jps instanceof Double value) {
            result.put("ratioToFloor", floorJobsPerSecond == null ? null : round(value / floorJobsPerSecond, 3));
            result.put("ratioToPeer", peerJobsPerSecond == null ? null : round(value / peerJobsPerSecond, 3));
        }
        Results.write(resultsDirectory, result);
    }

    void writeSummary() throws IOException {
        Results.writeSummary(resultsDirectory);
    }

    static double round(double value, int digits) {
        double scale = Math.pow(10, digits);
        return Math.round(value * scale) / scale;
    }
}
