package dev.postbox.benchmarks;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Per-job {@code System.nanoTime} stamps indexed by the job's sequence number, passed between the
 * child JVMs and the harness as files. On Linux {@code System.nanoTime} is {@code CLOCK_MONOTONIC},
 * one clock for every process on the host, so a producer's commit stamp and an engine's start stamp
 * taken in different JVMs can be subtracted.
 */
final class TimeStamps {

    private TimeStamps() {}

    static void write(Path file, long[] stamps) throws IOException {
        try (DataOutputStream out = new DataOutputStream(new BufferedOutputStream(Files.newOutputStream(file)))) {
            out.writeInt(stamps.length);
            for (long stamp : stamps) {
                out.writeLong(stamp);
            }
        }
    }

    static long[] read(Path file) throws IOException {
        try (DataInputStream in = new DataInputStream(new BufferedInputStream(Files.newInputStream(file)))) {
            long[] stamps = new long[in.readInt()];
            for (int i = 0; i < stamps.length; i++) {
                stamps[i] = in.readLong();
            }
            return stamps;
        }
    }

    /** The earliest non-zero stamp of each index over several files (a job started by two engines counts once). */
    static long[] earliest(long[]... all) {
        long[] merged = new long[all.length == 0 ? 0 : all[0].length];
        for (long[] stamps : all) {
            for (int i = 0; i < stamps.length; i++) {
                if (stamps[i] != 0 && (merged[i] == 0 || stamps[i] < merged[i])) {
                    merged[i] = stamps[i];
                }
            }
        }
        return merged;
    }
}
