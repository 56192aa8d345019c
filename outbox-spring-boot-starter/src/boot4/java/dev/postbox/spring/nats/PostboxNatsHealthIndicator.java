package dev.postbox.spring.nats;

import io.nats.client.Connection;
import io.nats.client.JetStreamManagement;
import io.nats.client.Nats;
import io.nats.client.Options;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * The NATS relay's health: {@code DOWN} when the server cannot be reached or has no JetStream;
 * {@code OUT_OF_SERVICE} when no stream captures a destination's subject (its messages are retried
 * until one does); else {@code UP}. Each check opens and closes a connection of its own; details
 * name the uncaptured subjects, never credentials.
 */
public final class PostboxNatsHealthIndicator implements HealthIndicator {

    private final Options options;
    private final List<String> subjects;

    public PostboxNatsHealthIndicator(Options options, List<String> subjects) {
        this.options = options;
        this.subjects = List.copyOf(new TreeSet<>(subjects));
    }

    @Override
    public Health health() {
        Connection connection = null;
        try {
            connection = Nats.connect(options);
            JetStreamManagement streams = connection.jetStreamManagement();
            List<String> uncaptured = new ArrayList<>();
            for (String subject : subjects) {
                if (streams.getStreamNames(subject).isEmpty()) {
                    uncaptured.add(subject);
                }
            }
            Health.Builder health = uncaptured.isEmpty() ? Health.up() : Health.outOfService();
            health.withDetail("subjects", subjects);
            if (!uncaptured.isEmpty()) {
                health.withDetail("uncapturedSubjects", uncaptured)
                        .withDetail("reason", "no stream captures these subjects; their messages are retried");
            }
            return health.build();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Health.unknown().withDetail("reason", "interrupted").build();
        } catch (Exception e) {
            return Health.down()
                    .withDetail("reason", "the NATS server (JetStream) could not be reached")
                    .withDetail("error", e.getClass().getSimpleName())
                    .build();
        } finally {
            if (connection != null) {
                try {
                    connection.close();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }
}
