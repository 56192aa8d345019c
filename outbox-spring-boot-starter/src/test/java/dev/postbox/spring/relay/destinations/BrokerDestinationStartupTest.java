package dev.postbox.spring.relay.destinations;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.postbox.amqp.AmqpRelay;
import dev.postbox.kafka.KafkaRelay;
import dev.postbox.nats.NatsRelay;
import dev.postbox.spring.Enqueue;
import dev.postbox.spring.OutboxEvent;
import dev.postbox.spring.PostboxAutoConfiguration;
import dev.postbox.spring.amqp.PostboxAmqpAutoConfiguration;
import dev.postbox.spring.kafka.PostboxKafkaAutoConfiguration;
import dev.postbox.spring.nats.PostboxNatsAutoConfiguration;
import dev.postbox.testing.TestDatabase;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurationPackage;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * An {@code @Enqueue} or {@code @OutboxEvent} that writes a broker relay's job for a destination the
 * relay does not have fails the application's start-up, naming the annotation, the destination and
 * the property to set (before, the job was written and failed when it ran, until its retries ran
 * out). {@code @OutboxEvent} types are found in the application's packages; one outside them fails
 * at its first publish, before anything is written.
 */
class BrokerDestinationStartupTest {

    /** An event for the AMQP destination "ledger", in this package (scanned when registered). */
    @OutboxEvent(kind = AmqpRelay.KIND, destination = "ledger")
    public record LedgerEntry(long id) {}

    /** The application's package, as {@code @SpringBootApplication} registers it. */
    @Configuration(proxyBeanMethods = false)
    @AutoConfigurationPackage
    static class ApplicationPackage {}

    static class Invoicing {
        @Enqueue(kind = KafkaRelay.KIND, destination = "invoices", payload = "#p0")
        public void bill(String invoice) {}
    }

    static class Shipping {
        @Enqueue(kind = NatsRelay.KIND, destination = "parcels", payload = "#p0")
        public void ship(String parcel) {}
    }

    static class Auditing {
        @Enqueue(kind = AmqpRelay.KIND, destination = "ledger", payload = "#p0")
        public void record(String entry) {}
    }

    static class Unaddressed {
        @Enqueue(kind = AmqpRelay.KIND, payload = "#p0")
        public void record(String entry) {}
    }

    private final List<DataSource> databases = new ArrayList<>();

    @AfterEach
    void dropDatabases() {
        databases.forEach(TestDatabase::drop);
        databases.clear();
    }

    /** The three relays, each with one destination; no worker (nothing is sent). */
    private ApplicationContextRunner runner() {
        DataSource dataSource = TestDatabase.create();
        databases.add(dataSource);
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        DataSourceTransactionManagerAutoConfiguration.class,
                        TransactionAutoConfiguration.class,
                        PostboxAutoConfiguration.class,
                        PostboxKafkaAutoConfiguration.class,
                        PostboxAmqpAutoConfiguration.class,
                        PostboxNatsAutoConfiguration.class))
                .withBean("dataSource", DataSource.class, () -> dataSource, d -> d.setDestroyMethodName(""))
                .withPropertyValues(
                        "postbox.schema.initialize=never",
                        "postbox.worker.enabled=false",
                        "postbox.scheduler.enabled=false",
                        "postbox.kafka.bootstrap-servers=127.0.0.1:9",
                        "postbox.kafka.destinations.orders.topic=orders",
                        "postbox.amqp.host=127.0.0.1",
                        "postbox.amqp.destinations.audit.routing-key=audit",
                        "postbox.nats.servers=nats://127.0.0.1:4222",
                        "postbox.nats.destinations.events.subject=events");
    }

    @Test
    void anOutboxEventTypeInTheApplicationsPackagesNamingAnUnconfiguredDestinationFailsTheStartup() {
        runner().withUserConfiguration(ApplicationPackage.class).run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure())
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("@OutboxEvent(kind = \"postbox.amqp\") on " + LedgerEntry.class.getName())
                    .hasMessageContaining("AMQP destination 'ledger', which is not configured (configured: [audit])")
                    .hasMessageContaining("Set postbox.amqp.destinations.ledger.routing-key");
        });
        runner().withUserConfiguration(ApplicationPackage.class)
                .withPropertyValues("postbox.amqp.destinations.ledger.routing-key=ledger")
                .run(context -> assertThat(context).hasNotFailed());
    }

    @Test
    void anEnqueueMethodNamingAnUnconfiguredDestinationFailsTheStartupForEachBroker() {
        Map<Class<?>, String> expected = Map.of(
                Invoicing.class,
                "@Enqueue(kind = \"postbox.kafka\") on " + Invoicing.class.getName() + ".bill(String) names Kafka"
                        + " destination 'invoices', which is not configured (configured: [orders]). Set"
                        + " postbox.kafka.destinations.invoices.topic, or name a configured destination.",
                Shipping.class,
                "@Enqueue(kind = \"postbox.nats\") on " + Shipping.class.getName() + ".ship(String) names NATS"
                        + " destination 'parcels', which is not configured (configured: [events]). Set"
                        + " postbox.nats.destinations.parcels.subject, or name a configured destination.",
                Auditing.class,
                "@Enqueue(kind = \"postbox.amqp\") on " + Auditing.class.getName() + ".record(String) names AMQP"
                        + " destination 'ledger', which is not configured (configured: [audit]). Set"
                        + " postbox.amqp.destinations.ledger.routing-key, or name a configured destination.");
        expected.forEach((bean, message) -> runner().withBean(bean).run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure())
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessage(message);
        }));
        runner().withBean(Auditing.class)
                .withPropertyValues("postbox.amqp.destinations.ledger.routing-key=ledger")
                .run(context -> assertThat(context).hasNotFailed());
    }

    @Test
    void anEnqueueMethodForARelayWithoutADestinationFailsTheStartup() {
        runner().withBean(Unaddressed.class).run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure())
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessage("@Enqueue(kind = \"postbox.amqp\") on " + Unaddressed.class.getName()
                            + ".record(String) writes a job for the AMQP relay but names no destination: set"
                            + " destination = one of [audit], or configure another with"
                            + " postbox.amqp.destinations.<name>.routing-key.");
        });
    }

    @Test
    void anOutboxEventTypeOutsideTheScannedPackagesFailsAtItsFirstPublishWritingNothing() {
        runner().run(context -> {
            assertThat(context).hasNotFailed();
            TransactionTemplate tx = new TransactionTemplate(context.getBean(PlatformTransactionManager.class));
            assertThatThrownBy(() -> tx.executeWithoutResult(s -> context.publishEvent(new LedgerEntry(1))))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("AMQP destination 'ledger', which is not configured")
                    .hasMessageContaining("Set postbox.amqp.destinations.ledger.routing-key");
            assertThat(new JdbcTemplate(context.getBean(DataSource.class))
                            .queryForObject("SELECT count(*) FROM outbox_job", Long.class))
                    .isZero();
        });
    }
}
