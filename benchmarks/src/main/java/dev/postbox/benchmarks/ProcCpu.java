package dev.postbox.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * CPU time of a process on this host from {@code /proc/<pid>/stat} (Linux): user plus system time,
 * in microseconds. Clock ticks are {@code getconf CLK_TCK}, 100 on every Linux this runs on.
 */
final class ProcCpu {

    private static final long TICKS_PER_SECOND = Long.getLong("bench.clockTicks", 100);

    private ProcCpu() {}

    /** The fields of {@code /proc/<pid>/stat} after the command name; index 0 is field 3 (state). Null if absent. */
    static String[] stat(long pid) {
        try {
            String text = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            return text.substring(text.lastIndexOf(')') + 2).trim().split(" ");
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /** utime + stime of {@code pid} in microseconds, or -1 when there is no such process here. */
    static long cpuMicros(long pid) {
        String[] f = stat(pid);
        return f == null ? -1 : ticksToMicros(Long.parseLong(f[11]) + Long.parseLong(f[12]));
    }

    /** utime + stime of {@code pid} plus cutime + cstime (its children that exited and were waited for). */
    static long cpuMicrosWithExitedChildren(long pid) {
        String[] f = stat(pid);
        return f == null
                ? -1
                : ticksToMicros(
                        Long.parseLong(f[11]) + Long.parseLong(f[12]) + Long.parseLong(f[13]) + Long.parseLong(f[14]));
    }

    static long parentPid(long pid) {
        String[] f = stat(pid);
        return f == null ? -1 : Long.parseLong(f[1]);
    }

    /** The command name ({@code /proc/<pid>/comm}), or null. */
    static String command(long pid) {
        try {
            return Files.readString(Path.of("/proc", Long.toString(pid), "comm"))
                    .trim();
        } catch (IOException e) {
            return null;
        }
    }

    static long ticksToMicros(long ticks) {
        return ticks * 1_000_000L / TICKS_PER_SECOND;
    }
}
