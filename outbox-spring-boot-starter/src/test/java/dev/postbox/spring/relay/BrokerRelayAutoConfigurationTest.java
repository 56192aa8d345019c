package dev.postbox.spring.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.GetResponse;
import dev.postbox.Postbox;
import dev.postbox.amqp.AmqpRelay;
import dev.postbox.kafka.KafkaRelay;
import dev.postbox.nats.NatsRelay;
import dev.postbox.spring.PostboxAutoConfiguration;
import dev.postbox.spring.amqp.PostboxAmqpAutoConfiguration;
import dev.postbox.spring.kafka.PostboxKafkaAutoConfiguration;
import dev.postbox.spring.metrics.PostboxMetricsAutoConfiguration;
import dev.postbox.spring.nats.PostboxNatsAutoConfiguration;
import dev.postbox.testing.TestDatabase;
import io.micrometer.core.instrument.MeterRegistry;
import io.nats.client.Connection;
import io.nats.client.JetStreamManagement;
import io.nats.client.JetStreamSubscription;
import io.nats.client.Message;
import io.nats.client.Nats;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import javax.sql.DataSource;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.context.ApplicationContext;
import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The broker relays' auto-configuration end to end: properties make a relay, the relay is installed
 * into the starter's engine and delivers a committed message to a real broker (a KRaft broker in
 * this JVM; the local RabbitMQ and NATS servers), the health contributors tell a reachable broker
 * from a missing topic, exchange or stream, and the metrics count per destination.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class BrokerRelayAutoConfigurationTest {

    private final String suffix = UUID.randomUUID().toString().substring(0, 8);
    private final List<DataSource> databases = new ArrayList<>();
    private EmbeddedKafkaKraftBroker kafka;

    /** spring-kafka-test's broker on Kafka 4.3.1 (see the delivery-kafka tests). */
    static final class KraftBroker extends EmbeddedKafkaKraftBroker {
        KraftBroker() {
            super(1, 1);
        }

        @Override
        public String getBrokersAsString() {
            return getCluster().bootstrapServers();
        }
    }

    @BeforeAll
    void startKafka() {
        kafka = new KraftBroker();
        kafka.brokerProperty("auto.create.topics.enable", "false");
        kafka.afterPropertiesSet();
    }

    @AfterAll
    void stopKafka() {
        kafka.destroy();
    }

    @AfterEach
    void dropDatabases() {
        databases.forEach(TestDatabase::drop);
        databases.clear();
    }

    private ApplicationContextRunner runner() {
        DataSource dataSource = TestDatabase.create();
        databases.add(dataSource);
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        DataSourceTransactionManagerAutoConfiguration.class,
                        TransactionAutoConfiguration.class,
                        MetricsAutoConfiguration.class,
                        SimpleMetricsExportAutoConfiguration.class,
                        CompositeMeterRegistryAutoConfiguration.class,
                        PostboxAutoConfiguration.class,
                        PostboxMetricsAutoConfiguration.class,
                        PostboxKafkaAutoConfiguration.class,
                        PostboxAmqpAutoConfiguration.class,
                        PostboxNatsAutoConfiguration.class))
                .withBean("dataSource", DataSource.class, () -> dataSource, d -> d.setDestroyMethodName(""))
                .withPropertyValues(
                        "postbox.schema.initialize=never",
                        "postbox.worker.poll-interval=100ms",
                        "postbox.worker.shutdown-grace=2s");
    }

    private static void commit(ApplicationContext context, Runnable enqueue) {
        new TransactionTemplate(context.getBean(PlatformTransactionManager.class))
                .executeWithoutResult(status -> enqueue.run());
    }

    private static Health health(ApplicationContext context, String name) {
        return context.getBean(name, HealthIndicator.class).health();
    }

    private static double relayCount(ApplicationContext context, String broker, String destination, String outcome) {
        var counter = context.getBean(MeterRegistry.class)
                .find("postbox.relay.messages")
                .tags("broker", broker, "destination", destination, "outcome", outcome)
                .counter();
        return counter == null ? 0 : counter.count();
    }

    @Test
    void withoutDestinationsNoRelayIsConfiguredAndEnabledFalseTurnsOneOff() {
        runner().run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).doesNotHaveBean(KafkaRelay.class);
            assertThat(context).doesNotHaveBean(AmqpRelay.class);
            assertThat(context).doesNotHaveBean(NatsRelay.class);
        });
        runner().withPropertyValues(
                        "postbox.kafka.enabled=false",
                        "postbox.kafka.bootstrap-servers=" + kafka.getBrokersAsString(),
                        "postbox.kafka.destinations.orders.topic=orders")
                .run(context -> assertThat(context).doesNotHaveBean(KafkaRelay.class));
    }

    @Test
    void aProducerSettingThatBreaksTheGuaranteeFailsTheStartWithTheFix() {
        runner().withPropertyValues(
                        "postbox.kafka.bootstrap-servers=" + kafka.getBrokersAsString(),
                        "postbox.kafka.producer.acks=1",
                        "postbox.kafka.destinations.orders.topic=orders")
                .run(context -> assertThat(context)
                        .hasFailed()
                        .getFailure()
                        .rootCause()
                        .hasMessageContaining("acks=1 is not allowed"));
    }

    @Test
    void kafkaRelayFromPropertiesDeliversHasHealthAndCountsPerDestination() throws Exception {
        String topic = "starter-" + suffix;
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", kafka.getBrokersAsString()))) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get();
        }
        runner().withPropertyValues(
                        "postbox.kafka.bootstrap-servers=" + kafka.getBrokersAsString(),
                        "postbox.kafka.producer.linger.ms=1",
                        "postbox.kafka.destinations.orders.topic=" + topic,
                        "postbox.kafka.destinations.missing.topic=no-such-topic-" + suffix)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    KafkaRelay relay = context.getBean(KafkaRelay.class);
                    Postbox postbox = context.getBean(Postbox.class);
                    assertThat(postbox.handlerKinds()).contains(KafkaRelay.KIND);
                    commit(
                            context,
                            () -> postbox.outbox()
                                    .enqueue(relay.messageBuilder("orders", Map.of("order", 7), "order-7")
                                            .orderingKey("customer-1")
                                            .build()));

                    List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
                    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(Map.of(
                            "bootstrap.servers", kafka.getBrokersAsString(),
                            "key.deserializer", ByteArrayDeserializer.class,
                            "value.deserializer", ByteArrayDeserializer.class))) {
                        TopicPartition partition = new TopicPartition(topic, 0);
                        consumer.assign(List.of(partition));
                        consumer.seekToBeginning(List.of(partition));
                        await().atMost(Duration.ofSeconds(30)).until(() -> {
                            consumer.poll(Duration.ofMillis(200)).forEach(records::add);
                            return !records.isEmpty();
                        });
                    }
                    assertThat(new String(records.get(0).key(), StandardCharsets.UTF_8))
                            .isEqualTo("customer-1");

                    await().atMost(Duration.ofSeconds(10))
                            .until(() -> relayCount(context, "kafka", "orders", "sent") == 1);
                    assertThat(context.getBean(MeterRegistry.class)
                                    .get("postbox.kafka.records")
                                    .tags("destination", "orders", "outcome", "acknowledged")
                                    .counter()
                                    .count())
                            .isEqualTo(1);

                    Health health = health(context, "postboxKafkaHealthIndicator");
                    assertThat(health.getStatus()).isEqualTo(Status.OUT_OF_SERVICE);
                    assertThat(health.getDetails())
                            .containsEntry("brokers", 1)
                            .containsEntry("missingTopics", List.of("no-such-topic-" + suffix));
                });
        runner().withPropertyValues(
                        "postbox.kafka.bootstrap-servers=127.0.0.1:1",
                        "postbox.kafka.health-timeout=500ms",
                        "postbox.kafka.destinations.orders.topic=" + topic)
                .run(context -> assertThat(
                                health(context, "postboxKafkaHealthIndicator").getStatus())
                        .isEqualTo(Status.DOWN));
    }

    @Test
    void amqpRelayFromPropertiesDeliversHasHealthAndCountsPerDestination() throws Exception {
        String queue = "postbox.starter." + suffix;
        ConnectionFactory factory = new ConnectionFactory();
        factory.setHost("127.0.0.1");
        try (com.rabbitmq.client.Connection broker = factory.newConnection("postbox-test")) {
            Channel admin = broker.createChannel();
            admin.queueDeclare(queue, false, false, true, null);
            runner().withPropertyValues(
                            "postbox.amqp.host=127.0.0.1",
                            "postbox.amqp.destinations.audit.routing-key=" + queue,
                            "postbox.amqp.destinations.missing.exchange=no-such-exchange-" + suffix,
                            "postbox.amqp.destinations.missing.routing-key=x")
                    .run(context -> {
                        assertThat(context).hasNotFailed();
                        AmqpRelay relay = context.getBean(AmqpRelay.class);
                        Postbox postbox = context.getBean(Postbox.class);
                        commit(context, () -> postbox.outbox().enqueue(relay.message("audit", Map.of("n", 1), "a-1")));

                        List<GetResponse> received = new ArrayList<>();
                        await().atMost(Duration.ofSeconds(20)).until(() -> {
                            GetResponse r = admin.basicGet(queue, true);
                            if (r != null) {
                                received.add(r);
                            }
                            return !received.isEmpty();
                        });
                        assertThat(received.get(0).getProps().getMessageId()).isEqualTo("a-1");
                        await().atMost(Duration.ofSeconds(10))
                                .until(() -> relayCount(context, "amqp", "audit", "sent") == 1);

                        Health health = health(context, "postboxAmqpHealthIndicator");
                        assertThat(health.getStatus()).isEqualTo(Status.OUT_OF_SERVICE);
                        assertThat(health.getDetails())
                                .containsEntry("missingExchanges", List.of("no-such-exchange-" + suffix));
                    });
            admin.queueDelete(queue);
        }
    }

    @Test
    void natsRelayFromPropertiesDeliversHasHealthAndCountsPerDestination() throws Exception {
        String stream = "POSTBOX_STARTER_" + suffix.toUpperCase();
        String subject = "postbox.starter." + suffix;
        try (Connection nats = Nats.connect("nats://127.0.0.1:4222")) {
            JetStreamManagement jsm = nats.jetStreamManagement();
            jsm.addStream(StreamConfiguration.builder()
                    .name(stream)
                    .subjects(subject)
                    .storageType(StorageType.Memory)
                    .build());
            try {
                runner().withPropertyValues(
                                "postbox.nats.servers=nats://127.0.0.1:4222",
                                "postbox.nats.destinations.events.subject=" + subject,
                                "postbox.nats.destinations.events.expected-stream=" + stream)
                        .run(context -> {
                            assertThat(context).hasNotFailed();
                            assertThat(health(context, "postboxNatsHealthIndicator")
                                            .getStatus())
                                    .isEqualTo(Status.UP);
                            NatsRelay relay = context.getBean(NatsRelay.class);
                            Postbox postbox = context.getBean(Postbox.class);
                            commit(
                                    context,
                                    () -> postbox.outbox().enqueue(relay.message("events", Map.of("n", 1), "n-1")));

                            JetStreamSubscription sub = nats.jetStream().subscribe(subject);
                            Message m = sub.nextMessage(Duration.ofSeconds(20));
                            assertThat(m).isNotNull();
                            assertThat(m.getHeaders().getFirst("Nats-Msg-Id")).isEqualTo("n-1");
                            await().atMost(Duration.ofSeconds(10))
                                    .until(() -> relayCount(context, "nats", "events", "sent") == 1);
                        });
                runner().withPropertyValues(
                                "postbox.nats.servers=nats://127.0.0.1:4222",
                                "postbox.nats.destinations.events.subject=uncaptured." + suffix)
                        .run(context -> assertThat(health(context, "postboxNatsHealthIndicator")
                                        .getDetails())
                                .containsEntry("uncapturedSubjects", List.of("uncaptured." + suffix)));
            } finally {
                jsm.deleteStream(stream);
            }
        }
    }
}
