package dev.postbox.spring.kafka;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.clients.admin.ListTopicsOptions;
import org.apache.kafka.clients.admin.ListTopicsResult;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * The Kafka relay's health: {@code DOWN} when the cluster does not answer within {@code
 * postbox.kafka.health-timeout}; {@code OUT_OF_SERVICE} when a destination's topic does not exist
 * (its jobs are retried until it does); else {@code UP}. Details name the broker count and the
 * missing topics, never credentials. Uses one admin client of its own, opened on first use.
 */
public final class PostboxKafkaHealthIndicator implements HealthIndicator, AutoCloseable {

    private final Map<String, Object> adminConfig;
    private final Collection<String> topics;
    private final Duration timeout;
    private @Nullable Admin admin;

    public PostboxKafkaHealthIndicator(Map<String, ?> clientConfig, Collection<String> topics, Duration timeout) {
        this.adminConfig = new HashMap<>(clientConfig);
        this.topics = List.copyOf(new TreeSet<>(topics));
        this.timeout = timeout;
    }

    @Override
    public Health health() {
        int millis = (int) Math.max(1, timeout.toMillis());
        try {
            Admin client = admin();
            int brokers = client.describeCluster(new DescribeClusterOptions().timeoutMs(millis))
                    .nodes()
                    .get(millis, TimeUnit.MILLISECONDS)
                    .size();
            ListTopicsResult listed = client.listTopics(new ListTopicsOptions().timeoutMs(millis));
            Set<String> existing = listed.names().get(millis, TimeUnit.MILLISECONDS);
            List<String> missing = new ArrayList<>();
            for (String topic : topics) {
                if (!existing.contains(topic)) {
                    missing.add(topic);
                }
            }
            Health.Builder health = missing.isEmpty() ? Health.up() : Health.outOfService();
            health.withDetail("brokers", brokers).withDetail("topics", topics);
            if (!missing.isEmpty()) {
                health.withDetail("missingTopics", missing)
                        .withDetail("reason", "records for these topics are retried until the topics exist");
            }
            return health.build();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Health.unknown().withDetail("reason", "interrupted").build();
        } catch (Exception e) {
            return Health.down()
                    .withDetail("reason", "the Kafka cluster did not answer within " + millis + " ms")
                    .withDetail("error", e.getClass().getSimpleName())
                    .build();
        }
    }

    private synchronized Admin admin() {
        if (admin == null) {
            admin = Admin.create(adminConfig);
        }
        return admin;
    }

    @Override
    public synchronized void close() {
        if (admin != null) {
            admin.close(Duration.ofSeconds(1));
            admin = null;
        }
    }
}
