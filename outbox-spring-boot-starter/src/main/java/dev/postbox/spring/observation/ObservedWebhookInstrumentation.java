package dev.postbox.spring.observation;

import static dev.postbox.spring.observation.PostboxObservations.ATTEMPT;
import static dev.postbox.spring.observation.PostboxObservations.ENDPOINT;
import static dev.postbox.spring.observation.PostboxObservations.JOB_ID;
import static dev.postbox.spring.observation.PostboxObservations.OUTCOME;
import static dev.postbox.spring.observation.PostboxObservations.STATUS;
import static dev.postbox.spring.observation.PostboxObservations.STATUS_CODE;

import dev.postbox.Job;
import dev.postbox.http.AttemptResult;
import dev.postbox.http.FailureCause;
import dev.postbox.http.webhook.WebhookInstrumentation;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * {@link WebhookInstrumentation} with a {@value PostboxObservations#WEBHOOK_SEND} observation per
 * request; the request carries the trace context of that observation's span (a child of the
 * handler attempt's), injected by the registry's tracing handler.
 */
final class ObservedWebhookInstrumentation implements WebhookInstrumentation {

    private final ObservationRegistry registry;

    ObservedWebhookInstrumentation(ObservationRegistry registry) {
        this.registry = registry;
    }

    @Override
    public AttemptResult send(Job job, String endpoint, Function<Map<String, String>, AttemptResult> send) {
        WebhookSendObservationContext context = new WebhookSendObservationContext(job, endpoint);
        Observation observation = Observation.createNotStarted(
                        PostboxObservations.WEBHOOK_SEND, () -> context, registry)
                .contextualName("webhook " + endpoint)
                .lowCardinalityKeyValue(ENDPOINT, endpoint)
                .highCardinalityKeyValue(JOB_ID, Long.toString(job.id()))
                .highCardinalityKeyValue(ATTEMPT, Integer.toString(job.attempt()));
        if (observation.isNoop()) {
            return send.apply(Map.of());
        }
        observation.start();
        try (Observation.Scope scope = observation.openScope()) {
            AttemptResult result = send.apply(context.getCarrier() != null ? context.getCarrier() : Map.of());
            observation
                    .lowCardinalityKeyValue(OUTCOME, outcome(result))
                    .lowCardinalityKeyValue(STATUS, statusClass(result.statusCode()));
            Integer statusCode = result.statusCode();
            if (statusCode != null) {
                observation.highCardinalityKeyValue(STATUS_CODE, Integer.toString(statusCode));
            }
            return result;
        } catch (RuntimeException | Error e) {
            observation
                    .lowCardinalityKeyValue(OUTCOME, "error")
                    .lowCardinalityKeyValue(STATUS, "none")
                    .error(e);
            throw e;
        } finally {
            observation.stop();
        }
    }

    private static String outcome(AttemptResult result) {
        if (result.cause() == FailureCause.NOT_SENT) {
            return "not-sent";
        }
        return result.outcome().name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    private static String statusClass(@Nullable Integer status) {
        return status == null ? "none" : (status / 100) + "xx";
    }
}
