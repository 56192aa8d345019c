package dev.postbox.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Stream;

/**
 * CPU time spent during a measurement, from {@code /proc}: by JVMs (the harness itself or its
 * children), by the PostgreSQL backends of the benchmark's connections (found through {@code
 * pg_stat_activity.pid} by {@code application_name}, so the server must run on this host), and by the
 * whole PostgreSQL server (the postmaster, its live children, and the children that exited in the
 * meantime: background writer, WAL writer, autovacuum and other databases' backends included, so it
 * means something only on a quiet machine). Backends that exit during the measurement take their
 * CPU with them from the per-application figures (the pools here keep their connections open).
 */
final class CpuMeter implements AutoCloseable {

    static final String METER_APPLICATION = "bench-meter";

    private final Connection connection;
    private final Map<String, Long> jvms;
    private final List<String> applications;
    private final long startNanos;
    private final Map<String, Long> jvmStart = new LinkedHashMap<>();
    private final Map<String, Map<Long, Long>> backendStart = new LinkedHashMap<>();
    private final long postmaster;
    private final long serverStart;

    private CpuMeter(Connection connection, Map<String, Long> jvms, List<String> applications) throws SQLException {
        this.connection = connection;
        this.jvms = jvms;
        this.applications = applications;
        this.postmaster = postmaster(connection);
        this.startNanos = System.nanoTime();
        jvms.forEach((label, pid) -> jvmStart.put(label, ProcCpu.cpuMicros(pid)));
        for (String application : applications) {
            backendStart.put(application, backends(application));
        }
        this.serverStart = serverMicros();
    }

    /**
     * Starts measuring the JVMs ({@code label -> pid}) and the backends of {@code applications} on the
     * database of {@code jdbcUrl}.
     */
    static CpuMeter start(String jdbcUrl, Map<String, Long> jvms, List<String> applications) throws SQLException {
        Properties props = new Properties();
        props.setProperty("ApplicationName", METER_APPLICATION);
        return new CpuMeter(DriverManager.getConnection(jdbcUrl, props), jvms, applications);
    }

    /** The CPU used since the start, in total and per job ({@code jobs} may be 0: no per-job figures). */
    Map<String, Object> stop(long jobs) throws SQLException {
        double seconds = (System.nanoTime() - startNanos) / 1e9;
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("wallSeconds", Env.round(seconds, 3));
        r.put("jobs", jobs);
        Map<String, Object> jvmCpu = new LinkedHashMap<>();
        jvms.forEach(
                (label, pid) -> jvmCpu.put(label, usage(jvmStart.get(label), ProcCpu.cpuMicros(pid), jobs, seconds)));
        r.put("jvms", jvmCpu);
        Map<String, Object> backendCpu = new LinkedHashMap<>();
        for (String application : applications) {
            Map<Long, Long> before = backendStart.get(application);
            Map<Long, Long> after = backends(application);
            long used = 0;
            boolean measurable = !after.isEmpty() || !before.isEmpty();
            for (Map.Entry<Long, Long> e : after.entrySet()) {
                if (e.getValue() < 0) {
                    measurable = false;
                    continue;
                }
                used += e.getValue() - Math.max(0, before.getOrDefault(e.getKey(), 0L));
            }
            long exited = before.keySet().stream()
                    .filter(pid -> !after.containsKey(pid))
                    .count();
            Map<String, Object> u = usage(0, measurable ? used : -1, jobs, seconds);
            u.put("backends", after.size());
            u.put("backendsExitedMeanwhile", exited);
            backendCpu.put(application, u);
        }
        r.put("postgresBackends", backendCpu);
        r.put("postgresServer", usage(serverStart, serverMicros(), jobs, seconds));
        r.put("postgresOnThisHost", postmaster > 0);
        return r;
    }

    private static Map<String, Object> usage(long before, long after, long jobs, double seconds) {
        Map<String, Object> u = new LinkedHashMap<>();
        if (before < 0 || after < 0) {
            u.put("cpuMicros", null);
            u.put("microsPerJob", null);
            u.put("cores", null);
            return u;
        }
        long used = after - before;
        u.put("cpuMicros", used);
        u.put("microsPerJob", jobs > 0 ? Env.round((double) used / jobs, 2) : null);
        u.put("cores", seconds > 0 ? Env.round(used / 1e6 / seconds, 3) : null);
        return u;
    }

    /** pid -> CPU micros of this database's backends with that application name (-1: not on this host). */
    private Map<Long, Long> backends(String application) throws SQLException {
        Map<Long, Long> m = new HashMap<>();
        try (PreparedStatement ps = connection.prepareStatement(
                "SELECT pid FROM pg_stat_activity" + " WHERE datname = current_database() AND application_name = ?")) {
            ps.setString(1, application);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    long pid = rs.getLong(1);
                    m.put(pid, postmaster > 0 ? ProcCpu.cpuMicros(pid) : -1);
                }
            }
        }
        return m;
    }

    /** The postmaster's pid when this connection's backend is a local {@code postgres} process, else -1. */
    private static long postmaster(Connection c) throws SQLException {
        long backend;
        try (PreparedStatement ps = c.prepareStatement("SELECT pg_backend_pid()");
                ResultSet rs = ps.executeQuery()) {
            rs.next();
            backend = rs.getLong(1);
        }
        String command = ProcCpu.command(backend);
        if (command == null || !command.startsWith("postgres")) {
            return -1; // another host or another PID namespace (a container)
        }
        long parent = ProcCpu.parentPid(backend);
        String parentCommand = ProcCpu.command(parent);
        return parentCommand != null && parentCommand.startsWith("postgres") ? parent : -1;
    }

    private long serverMicros() {
        if (postmaster <= 0) {
            return -1;
        }
        long total = ProcCpu.cpuMicrosWithExitedChildren(postmaster);
        try (Stream<Path> procs = Files.list(Path.of("/proc"))) {
            for (Path p : procs.toList()) {
                String name = p.getFileName().toString();
                if (!name.chars().allMatch(Character::isDigit)) {
                    continue;
                }
                long pid = Long.parseLong(name);
                if (ProcCpu.parentPid(pid) == postmaster) {
                    long cpu = ProcCpu.cpuMicros(pid);
                    total += Math.max(0, cpu);
                }
            }
        } catch (IOException e) {
            return -1;
        }
        return total;
    }

    @Override
    public void close() throws SQLException {
        connection.close();
    }
}
