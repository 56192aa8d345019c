package dev.postbox;

import java.time.Duration;

/**
 * A queue's state right now.
 *
 * @param due pending or retry jobs whose run time has come (claimable)
 * @param scheduled pending or retry jobs whose run time is in the future
 * @param running jobs under a lease
 * @param oldestDueAge how long the oldest claimable job has been due (zero when none): the SLO
 * @param dead dead letters of this queue
 * @param paused whether claiming is paused
 */
public record QueueStats(
        String queue, long due, long scheduled, long running, Duration oldestDueAge, long dead, boolean paused) {}
