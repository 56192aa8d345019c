package dev.postbox.chaos;

import java.nio.file.Path;
import java.time.Duration;

/**
 * One chaos run's parameters. {@link #ci()} is what {@code ./mvnw verify} runs; every field can be
 * overridden by a {@code chaos.*} system property (see README), which is how the soak profile is run.
 */
public record ChaosConfig(
        String name,
        long seed,
        int workers,
        int minCommittedIntents,
        Duration maxProduceTime,
        double txPerSecond,
        int maxBacklog,
        int minZombieStops,
        double rollbackShare,
        double poisonShare,
        Duration drainTimeout,
        Duration killMin,
        Duration killMax,
        double stopProbability,
        double connectionKillProbability,
        double crashPointShare,
        double crashPointProbability,
        double receiver5xx,
        double receiverTimeoutAfterApply,
        double receiver429,
        double receiverReset,
        boolean receiverDedup,
        boolean brokenFencing,
        Duration visibilityTimeout,
        Duration heartbeatInterval,
        String adminJdbcUrl,
        Path reportDir) {

    /** The CI profile: at least 10,000 committed intents, a kill every 2-5 s, all fault kinds. */
    static ChaosConfig ci() {
        return new ChaosConfig(
                "chaos-report",
                seedFromProperty(),
                3,
                10_500,
                Duration.ofSeconds(420),
                40,
                1500,
                0,
                0.10,
                0.03,
                Duration.ofSeconds(90),
                Duration.ofSeconds(2),
                Duration.ofSeconds(5),
                0.25,
                0.30,
                0.7,
                0.0015,
                0.03,
                0.03,
                0.02,
                0.02,
                true,
                false,
                Duration.ofSeconds(2),
                Duration.ofMillis(500),
                null,
                reportDirFromProperty());
    }

    /** Applies {@code chaos.*} system properties over these values. */
    ChaosConfig withOverrides() {
        return new ChaosConfig(
                str("chaos.name", name),
                seed,
                integer("chaos.workers", workers),
                integer("chaos.minIntents", minCommittedIntents),
                seconds("chaos.durationSeconds", maxProduceTime),
                dbl("chaos.txPerSecond", txPerSecond),
                integer("chaos.maxBacklog", maxBacklog),
                integer("chaos.minZombieStops", minZombieStops),
                dbl("chaos.rollbackShare", rollbackShare),
                dbl("chaos.poisonShare", poisonShare),
                seconds("chaos.drainSeconds", drainTimeout),
                millis("chaos.killMinMs", killMin),
                millis("chaos.killMaxMs", killMax),
                dbl("chaos.stopProbability", stopProbability),
                dbl("chaos.connectionKillProbability", connectionKillProbability),
                dbl("chaos.crashPointShare", crashPointShare),
                dbl("chaos.crashPointProbability", crashPointProbability),
                dbl("chaos.receiver5xx", receiver5xx),
                dbl("chaos.receiverTimeoutAfterApply", receiverTimeoutAfterApply),
                dbl("chaos.receiver429", receiver429),
                dbl("chaos.receiverReset", receiverReset),
                bool("chaos.receiverDedup", receiverDedup),
                bool("chaos.brokenFencing", brokenFencing),
                visibilityTimeout,
                heartbeatInterval,
                str("chaos.jdbcUrl", adminJdbcUrl),
                reportDir);
    }

    ChaosConfig named(String newName) {
        return new ChaosConfig(
                newName,
                seed,
                workers,
                minCommittedIntents,
                maxProduceTime,
                txPerSecond,
                maxBacklog,
                minZombieStops,
                rollbackShare,
                poisonShare,
                drainTimeout,
                killMin,
                killMax,
                stopProbability,
                connectionKillProbability,
                crashPointShare,
                crashPointProbability,
                receiver5xx,
                receiverTimeoutAfterApply,
                receiver429,
                receiverReset,
                receiverDedup,
                brokenFencing,
                visibilityTimeout,
                heartbeatInterval,
                adminJdbcUrl,
                reportDir);
    }

    /** A short run (negative controls): produce for {@code seconds}, no intent minimum. */
    ChaosConfig shortRun(int minIntents) {
        return new ChaosConfig(
                name,
                seed,
                workers,
                minIntents,
                Duration.ofSeconds(60),
                txPerSecond,
                maxBacklog,
                minZombieStops,
                rollbackShare,
                poisonShare,
                Duration.ofSeconds(45),
                killMin,
                killMax,
                stopProbability,
                connectionKillProbability,
                crashPointShare,
                crashPointProbability,
                receiver5xx,
                receiverTimeoutAfterApply,
                receiver429,
                receiverReset,
                receiverDedup,
                brokenFencing,
                visibilityTimeout,
                heartbeatInterval,
                adminJdbcUrl,
                reportDir);
    }

    ChaosConfig receiverDedup(boolean dedup, double timeoutAfterApply) {
        return new ChaosConfig(
                name,
                seed,
                workers,
                minCommittedIntents,
                maxProduceTime,
                txPerSecond,
                maxBacklog,
                minZombieStops,
                rollbackShare,
                poisonShare,
                drainTimeout,
                killMin,
                killMax,
                stopProbability,
                connectionKillProbability,
                crashPointShare,
                crashPointProbability,
                receiver5xx,
                timeoutAfterApply,
                receiver429,
                receiverReset,
                dedup,
                brokenFencing,
                visibilityTimeout,
                heartbeatInterval,
                adminJdbcUrl,
                reportDir);
    }

    ChaosConfig brokenFencing(double stopProbability) {
        return new ChaosConfig(
                name,
                seed,
                workers,
                minCommittedIntents,
                maxProduceTime,
                txPerSecond,
                maxBacklog,
                1,
                rollbackShare,
                poisonShare,
                drainTimeout,
                killMin,
                killMax,
                stopProbability,
                connectionKillProbability,
                crashPointShare,
                crashPointProbability,
                receiver5xx,
                receiverTimeoutAfterApply,
                receiver429,
                receiverReset,
                receiverDedup,
                true,
                visibilityTimeout,
                heartbeatInterval,
                adminJdbcUrl,
                reportDir);
    }

    private static long seedFromProperty() {
        String s = System.getProperty("chaos.seed");
        return s == null || s.isBlank() ? System.nanoTime() ^ 0x5DEECE66DL : Long.parseLong(s.trim());
    }

    private static Path reportDirFromProperty() {
        return Path.of(System.getProperty("chaos.reportDir", "target"));
    }

    private static String str(String key, String fallback) {
        String v = System.getProperty(key);
        return v == null || v.isBlank() ? fallback : v.trim();
    }

    private static int integer(String key, int fallback) {
        String v = System.getProperty(key);
        return v == null || v.isBlank() ? fallback : Integer.parseInt(v.trim());
    }

    private static double dbl(String key, double fallback) {
        String v = System.getProperty(key);
        return v == null || v.isBlank() ? fallback : Double.parseDouble(v.trim());
    }

    private static boolean bool(String key, boolean fallback) {
        String v = System.getProperty(key);
        return v == null || v.isBlank() ? fallback : Boolean.parseBoolean(v.trim());
    }

    private static Duration seconds(String key, Duration fallback) {
        String v = System.getProperty(key);
        return v == null || v.isBlank() ? fallback : Duration.ofSeconds(Long.parseLong(v.trim()));
    }

    private static Duration millis(String key, Duration fallback) {
        String v = System.getProperty(key);
        return v == null || v.isBlank() ? fallback : Duration.ofMillis(Long.parseLong(v.trim()));
    }
}
