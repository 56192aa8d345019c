package dev.postbox.internal;

import dev.postbox.Job;

/**
 * A job this engine holds under a lease: the handler's view plus the fencing token.
 *
 * @param expired the job's expiry had passed (database clock) when it was claimed: it must not run
 */
public record ClaimedJob(Job job, long token, boolean expired) {

    public long id() {
        return job.id();
    }
}
