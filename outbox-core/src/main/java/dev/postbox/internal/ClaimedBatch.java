package dev.postbox.internal;

import dev.postbox.Job;
import dev.postbox.JobBatch;
import dev.postbox.Require;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The {@link JobBatch} a batch handler gets: its members and the failures it reports for them,
 * which are final once the handler has returned ({@link #close()}).
 */
final class ClaimedBatch implements JobBatch {

    private final String kind;
    private final List<Job> jobs;
    private final Map<Long, Throwable> failures = new HashMap<>();
    private boolean closed;

    ClaimedBatch(String kind, List<ClaimedJob> members) {
        this.kind = kind;
        this.jobs = members.stream().map(ClaimedJob::job).toList();
    }

    @Override
    public String kind() {
        return kind;
    }

    @Override
    public List<Job> jobs() {
        return jobs;
    }

    @Override
    public synchronized void fail(Job job, Throwable error) {
        Require.notNull(job, "job");
        Require.notNull(error, "error");
        if (jobs.stream().noneMatch(member -> member.id() == job.id())) {
            throw new IllegalArgumentException("job " + job.id() + " is not a member of this batch of kind '" + kind
                    + "': fail only the jobs of batch.jobs()");
        }
        if (closed) {
            throw new IllegalStateException("the batch handler for kind '" + kind + "' has returned, so job " + job.id()
                    + " is already done: wait for every outcome before returning from handle()");
        }
        failures.put(job.id(), error);
    }

    /** The handler has returned: no outcome changes from now on. */
    synchronized void close() {
        closed = true;
    }

    /** The failure reported for a member, if any. */
    synchronized @Nullable Throwable failure(ClaimedJob member) {
        return failures.get(member.id());
    }
}
