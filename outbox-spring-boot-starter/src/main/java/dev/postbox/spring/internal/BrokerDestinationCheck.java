package dev.postbox.spring.internal;

import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.BeanFactory;

/**
 * Checks that a job an annotation writes for a broker relay ({@code @Enqueue} or {@code @OutboxEvent}
 * with the kind of a relay configured in this application) names one of the relay's destinations,
 * when the annotation is first read: at start-up for {@code @Enqueue} methods of beans and for
 * {@code @OutboxEvent} types in the application's packages, else at the first call or publish, before
 * anything is written. Jobs of other kinds are not checked (another process may run them).
 */
final class BrokerDestinationCheck {

    private final BeanFactory beanFactory;

    BrokerDestinationCheck(BeanFactory beanFactory) {
        this.beanFactory = beanFactory;
    }

    /** Whether a broker relay is configured in this application. */
    boolean anyRelay() {
        return beanFactory.getBeanProvider(BrokerDestinations.class).stream()
                .findAny()
                .isPresent();
    }

    /**
     * @param where the annotation and what it is on, for the message
     * @param destination the annotation's destination; null or blank when it names none
     * @throws IllegalStateException when the kind is a configured relay's and the destination is not one of its
     */
    void check(String where, String kind, @Nullable String destination) {
        beanFactory.getBeanProvider(BrokerDestinations.class).stream()
                .filter(relay -> relay.kind().equals(kind))
                .forEach(relay -> relay.require(where, destination == null ? "" : destination));
    }
}
