package dev.postbox.spring.observation;

import dev.postbox.Job;
import io.micrometer.observation.transport.Kind;
import io.micrometer.observation.transport.ReceiverContext;

/**
 * The context of a {@value PostboxObservations#JOB_ATTEMPT} observation: the job whose handler runs.
 * A tracing handler reads the trace context stored at enqueue from the job's headers, so that the
 * attempt's span is a child of the producer's span; every attempt of a job is in the trace of its
 * enqueue.
 */
public final class JobAttemptObservationContext extends ReceiverContext<Job> {

    private final Job job;

    public JobAttemptObservationContext(Job job) {
        super((carrier, key) -> carrier.headers().get(key), Kind.CONSUMER);
        this.job = job;
        setCarrier(job);
        setRemoteServiceName("postbox");
    }

    public Job job() {
        return job;
    }
}
