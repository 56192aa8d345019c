package dev.postbox;

import java.util.List;

/**
 * Claimed jobs of one kind handed to a {@link BatchJobHandler} together, in claim order. The
 * handler reports each member that failed with {@link #fail}; the others are done when it returns.
 * {@code fail} may be called from other threads (a client library's callbacks), but only until
 * {@code handle} returns: the handler must wait for every outcome it depends on.
 */
public interface JobBatch {

    /** The job kind every member has. */
    String kind();

    /** The members, at least one, at most the registration's batch size. */
    List<Job> jobs();

    /**
     * Fails one member's attempt, classified as a plain handler's exception (see {@link
     * BatchJobHandler}); a second call for the same member replaces the first.
     *
     * @throws IllegalArgumentException if {@code job} is not a member of this batch
     * @throws IllegalStateException if the handler has already returned
     */
    void fail(Job job, Throwable error);
}
