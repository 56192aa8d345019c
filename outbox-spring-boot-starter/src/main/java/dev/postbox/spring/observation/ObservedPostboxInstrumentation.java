package dev.postbox.spring.observation;

import static dev.postbox.spring.observation.PostboxObservations.ATTEMPT;
import static dev.postbox.spring.observation.PostboxObservations.JOB_ID;
import static dev.postbox.spring.observation.PostboxObservations.KIND;
import static dev.postbox.spring.observation.PostboxObservations.OUTCOME;
import static dev.postbox.spring.observation.PostboxObservations.QUEUE;

import dev.postbox.EnqueueResult;
import dev.postbox.Job;
import dev.postbox.JobRequest;
import dev.postbox.PostboxInstrumentation;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link PostboxInstrumentation} with Micrometer Observations: {@value PostboxObservations#ENQUEUE}
 * per enqueued job (its trace context, injected by the registry's tracing handler, is stored with
 * the job), {@value PostboxObservations#JOB_ATTEMPT} per handler attempt (a child of that context,
 * current while the handler runs).
 */
final class ObservedPostboxInstrumentation implements PostboxInstrumentation {

    private static final Logger log = LoggerFactory.getLogger(ObservedPostboxInstrumentation.class);

    private final ObservationRegistry registry;

    ObservedPostboxInstrumentation(ObservationRegistry registry) {
        this.registry = registry;
    }

    @Override
    public List<EnqueueResult> enqueue(List<JobRequest> requests, EnqueueWrite write) {
        if (registry.isNoop()) {
            return write.write(requests);
        }
        List<Observation> observations = new ArrayList<>(requests.size());
        List<JobRequest> traced = new ArrayList<>(requests.size());
        for (JobRequest request : requests) {
            EnqueueObservationContext context = new EnqueueObservationContext(request);
            Observation observation = Observation.createNotStarted(PostboxObservations.ENQUEUE, () -> context, registry)
                    .contextualName("enqueue " + request.kind())
                    .lowCardinalityKeyValue(KIND, request.kind())
                    .lowCardinalityKeyValue(QUEUE, request.queue())
                    .start();
            observations.add(observation);
            traced.add(withTraceContext(request, context.getCarrier()));
        }
        // One job: its observation is current while it is written (spans of the insert nest in it).
        Observation.Scope scope = observations.size() == 1 ? observations.get(0).openScope() : null;
        try {
            List<EnqueueResult> results = write.write(traced);
            for (int i = 0; i < observations.size() && i < results.size(); i++) {
                observations
                        .get(i)
                        .lowCardinalityKeyValue(OUTCOME, results.get(i).created() ? "created" : "duplicate")
                        .highCardinalityKeyValue(
                                JOB_ID, Long.toString(results.get(i).jobId()));
            }
            return results;
        } catch (RuntimeException | Error e) {
            for (Observation observation : observations) {
                observation.lowCardinalityKeyValue(OUTCOME, "error").error(e);
            }
            throw e;
        } finally {
            if (scope != null) {
                scope.close();
            }
            observations.forEach(Observation::stop);
        }
    }

    /**
     * The request with the injected trace context as headers, replacing trace headers of the same
     * names; the request unchanged when nothing was injected (no tracing) or the headers are refused
     * (tracing never fails an enqueue).
     */
    private static JobRequest withTraceContext(JobRequest request, @Nullable Map<String, String> context) {
        if (context == null || context.isEmpty()) {
            return request;
        }
        try {
            return request.toBuilder().headers(context).build();
        } catch (IllegalArgumentException e) {
            log.debug("The trace context of a '{}' job was not stored: {}", request.kind(), e.getMessage());
            return request;
        }
    }

    @Override
    public Attempt attemptStarted(Job job) {
        JobAttemptObservationContext context = new JobAttemptObservationContext(job);
        Observation observation = Observation.createNotStarted(PostboxObservations.JOB_ATTEMPT, () -> context, registry)
                .contextualName("attempt " + job.kind())
                .lowCardinalityKeyValue(KIND, job.kind())
                .lowCardinalityKeyValue(QUEUE, job.queue())
                .highCardinalityKeyValue(JOB_ID, Long.toString(job.id()))
                .highCardinalityKeyValue(ATTEMPT, Integer.toString(job.attempt()));
        if (observation.isNoop()) {
            return Attempt.NONE;
        }
        observation.start();
        Observation.Scope scope = observation.openScope();
        return (outcome, error) -> {
            try {
                observation.lowCardinalityKeyValue(OUTCOME, outcome.tagValue());
                if (error != null && isFailure(outcome)) {
                    observation.error(error);
                }
            } finally {
                scope.close();
                observation.stop();
            }
        };
    }

    /** Outcomes that are failures of the attempt (a snooze or a lost lease is not the handler's failure). */
    private static boolean isFailure(AttemptOutcome outcome) {
        return outcome == AttemptOutcome.RETRY
                || outcome == AttemptOutcome.DEAD
                || outcome == AttemptOutcome.UNRECORDED
                || outcome == AttemptOutcome.TIMED_OUT;
    }
}
