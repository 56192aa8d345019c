package dev.postbox.spring.internal;

import java.util.Set;
import java.util.TreeSet;

/**
 * The destinations of a broker relay configured in this application (one bean per relay, from its
 * auto-configuration): a job of the relay's kind that an annotation writes must name one of them, or
 * it is only found out when its job runs. {@link BrokerDestinationCheck} applies it.
 *
 * @param broker the broker's name in messages ("Kafka", "AMQP", "NATS")
 * @param kind the relay's job kind
 * @param propertyPrefix the prefix of a destination's properties, {@code postbox.kafka.destinations}
 * @param requiredProperty the destination property that configures it, {@code topic}
 * @param names the configured destinations
 */
public record BrokerDestinations(
        String broker, String kind, String propertyPrefix, String requiredProperty, Set<String> names) {

    public BrokerDestinations {
        names = Set.copyOf(names);
    }

    /**
     * Fails when {@code destination} is not one of the relay's.
     *
     * @param where the annotation and what it is on, for the message
     * @throws IllegalStateException naming the annotation, the destination and the property to set
     */
    void require(String where, String destination) {
        if (destination.isBlank()) {
            throw new IllegalStateException(where + " writes a job for the " + broker + " relay but names no"
                    + " destination: set destination = one of " + new TreeSet<>(names) + ", or configure another"
                    + " with " + property("<name>") + ".");
        }
        if (!names.contains(destination)) {
            throw new IllegalStateException(where + " names " + broker + " destination '" + destination
                    + "', which is not configured (configured: " + new TreeSet<>(names) + "). Set "
                    + property(destination) + ", or name a configured destination.");
        }
    }

    /** The property that configures a destination of this name. */
    String property(String destination) {
        return propertyPrefix + "." + destination + "." + requiredProperty;
    }
}
