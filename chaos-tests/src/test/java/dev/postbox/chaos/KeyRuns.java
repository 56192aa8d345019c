package dev.postbox.chaos;

import dev.postbox.Job;

/**
 * The handlers' own record of when a job with an ordering key ran: {@code KEYRUN <job id> <tenant|->
 * <ordering key> <seq> <entry ms> <exit ms>} (wall clock, one host), printed as the handler body
 * ends, before the engine's completion commits. Two lines of one key whose runs intersect are two
 * jobs of the key running at once ({@link KeyOrderCheck}). A run cut short by a kill or a crash point
 * prints nothing: its process is gone.
 */
final class KeyRuns {

    static final String MARKER = "KEYRUN ";

    private KeyRuns() {}

    /** Prints the run of {@code job} that entered its handler at {@code entryMillis}, if it has an ordering key. */
    static void ran(Job job, long seq, long entryMillis) {
        job.orderingKey()
                .ifPresent(key -> System.out.println(
                        MARKER + job.id() + " " + job.tenant().orElse("-") + " " + key + " " + seq + " " + entryMillis
                                + " " + System.currentTimeMillis()));
    }
}
