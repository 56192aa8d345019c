package dev.postbox;

import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The handler of a relay that publishes one job at a time (AMQP, NATS): it finds the job's
 * destination, takes a permit of the destination's shared rate limit, and hands the job's message
 * to {@link #publish}, the broker's own part. What every such relay does the same way, with the same
 * outcomes and messages:
 *
 * <ul>
 *   <li>a job that names no destination is dead at once (it was not written by the relay);
 *   <li>a destination this process does not configure is retried (another deployment may);
 *   <li>a destination at its rate limit snoozes the job to its slot of the limit's line, without
 *       publishing and without spending an attempt.
 * </ul>
 *
 * @param <D> the broker's destination
 */
public abstract class RelayPublishHandler<D extends RelayDestination> implements OutcomeHandler {

    private final String broker;
    private final String relay;
    private final Map<String, D> destinations;
    private volatile Map<String, RateLimits.Bucket> buckets = Map.of();

    /**
     * @param broker the broker's name in outcomes' reasons ("AMQP", "NATS"); lower-cased, the prefix
     *     of its destinations' rate-limit buckets
     * @param relay the relay's class name, for the hint to a job without a destination ("AmqpRelay")
     * @param destinations the configured destinations, by name
     */
    protected RelayPublishHandler(String broker, String relay, Map<String, D> destinations) {
        this.broker = Require.notBlank(broker, "broker");
        this.relay = Require.notBlank(relay, "relay");
        this.destinations = Map.copyOf(Require.notNull(destinations, "destinations"));
    }

    /** Creates (or reconfigures) the shared bucket of each rate-limited destination. */
    public final void install(RateLimits limits) {
        buckets = RelayDestination.buckets(limits, broker.toLowerCase(Locale.ROOT), destinations.values());
    }

    @Override
    public final JobOutcome attempt(Job job) throws Exception {
        Optional<String> named = job.endpoint();
        if (named.isEmpty()) {
            return JobOutcome.dead(
                    "relay job " + job.id() + " names no destination: enqueue it with " + relay + ".message");
        }
        String name = named.get();
        D destination = destinations.get(name);
        if (destination == null) {
            return JobOutcome.retry(broker + " destination '" + name + "' is not configured in this process;"
                    + " add it to the relay (it is retried, and dead-lettered when the budget ends)");
        }
        if (destination.maxPerSecond() > 0) {
            RateLimits.Bucket bucket = buckets.get(name);
            if (bucket == null) {
                return JobOutcome.retry(broker + " destination '" + name + "' has a rate limit, but the relay is not"
                        + " installed in this engine: add it with Postbox.Builder.module(relay)");
            }
            RateLimits.Permits permits = bucket.take(1);
            if (permits.granted() == 0) {
                return JobOutcome.snooze(
                        permits.waitOf(0),
                        broker + " destination '" + name + "' is at its rate limit of " + destination.maxPerSecond()
                                + "/s");
            }
        }
        return publish(job, destination, RelayMessage.of(job));
    }

    /**
     * Publishes the job's message to its destination: {@link JobOutcome#done()} once the broker has
     * it, {@link JobOutcome#retry} with the broker's reason otherwise.
     *
     * @throws Exception an unexpected failure, retried like a handler's exception
     */
    protected abstract JobOutcome publish(Job job, D destination, RelayMessage message) throws Exception;
}
