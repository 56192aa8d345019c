package dev.postbox.chaos;

import dev.postbox.BatchHandlerRegistration;
import dev.postbox.BatchJobHandler;
import dev.postbox.HandlerRegistration;
import dev.postbox.Job;
import dev.postbox.JobBatch;
import dev.postbox.JobHandler;
import dev.postbox.JobOutcome;
import dev.postbox.OutcomeHandler;
import dev.postbox.Postbox;
import dev.postbox.PostboxModule;
import dev.postbox.amqp.AmqpDestination;
import dev.postbox.amqp.AmqpRelay;
import dev.postbox.kafka.KafkaDestination;
import dev.postbox.kafka.KafkaRelay;
import dev.postbox.nats.NatsDestination;
import dev.postbox.nats.NatsRelay;
import dev.postbox.spring.PostboxCustomizer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The chaos worker's broker relays (postbox-delivery-kafka, -amqp and -nats) on the destinations the
 * driver created for the run ({@code -Dchaos.kafka.*}, {@code -Dchaos.amqp.queue}, {@code
 * -Dchaos.nats.*}), with the retry policy of the other healthy kinds. Each handler is wrapped in the
 * start marker and the crash points ({@link CrashPoints}): for a relay, {@code after-handler} is after
 * the broker's acknowledgement and before the completion. The AMQP and NATS handlers join the engine
 * as a module, the Kafka batch handler through the builder.
 *
 * <p>Under a negative control the wrapper is a broken relay (the harness's defect, never the
 * modules'): {@link #COMPLETES_BEFORE_ACK}, {@link #KEY_PER_SEND}, {@link
 * #KAFKA_WITHOUT_RECORD_KEY}; each acts on its own slice of the broker traffic.
 */
final class BrokerRelays implements PostboxModule, PostboxCustomizer, AutoCloseable {

    /** Unordered messages with an even seq complete at once and are published {@link #DEFERRED} later. */
    static final String COMPLETES_BEFORE_ACK = "chaos.control.brokerCompletesBeforeAck";
    /**
     * Unordered messages with an odd seq carry {@code <key>~<random>} as their key, a new one at each
     * send (not the attempt number: an attempt refunded after a crash before its start mark runs again
     * under the same number, and would hide the defect).
     */
    static final String KEY_PER_SEND = "chaos.control.brokerKeyPerSend";
    /** Kafka records go without the ordering key as their record key. */
    static final String KAFKA_WITHOUT_RECORD_KEY = "chaos.control.kafkaWithoutRecordKey";

    /** How long the fire-and-forget relay of {@link #COMPLETES_BEFORE_ACK} holds a message before it publishes it. */
    static final Duration DEFERRED = Duration.ofSeconds(8);

    private final KafkaRelay kafka;
    private final AmqpRelay amqp;
    private final NatsRelay nats;
    private final CrashPoints crash;
    private final boolean completesBeforeAck = Boolean.getBoolean(COMPLETES_BEFORE_ACK);
    private final boolean keyPerSend = Boolean.getBoolean(KEY_PER_SEND);
    private final boolean kafkaWithoutRecordKey = Boolean.getBoolean(KAFKA_WITHOUT_RECORD_KEY);
    private final ScheduledExecutorService later = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "chaos-fire-and-forget");
        t.setDaemon(true);
        return t;
    });

    BrokerRelays(CrashPoints crash) {
        this.crash = crash;
        warmUpKafka(WorkerMain.required("chaos.kafka.bootstrap"), WorkerMain.required("chaos.kafka.topic"));
        this.kafka = KafkaRelay.builder(Map.of("bootstrap.servers", WorkerMain.required("chaos.kafka.bootstrap")))
                .destination(KafkaDestination.of(Brokers.DESTINATION, WorkerMain.required("chaos.kafka.topic")))
                .retryPolicy(WorkerMain.REGULAR)
                .sendTimeout(Duration.ofSeconds(10))
                .build();
        this.amqp = AmqpRelay.builder(Brokers.rabbitFactory())
                .destination(AmqpDestination.queue(Brokers.DESTINATION, WorkerMain.required("chaos.amqp.queue")))
                .retryPolicy(WorkerMain.REGULAR)
                .confirmTimeout(Duration.ofSeconds(5))
                .build();
        this.nats = NatsRelay.builder(Brokers.natsOptions())
                .destination(NatsDestination.of(
                        Brokers.DESTINATION,
                        WorkerMain.required("chaos.nats.subject"),
                        WorkerMain.required("chaos.nats.stream")))
                .retryPolicy(WorkerMain.REGULAR)
                .ackTimeout(Duration.ofSeconds(5))
                .build();
    }

    /**
     * Loads the Kafka client and asks for the topic's partitions before the worker is READY: a fresh
     * worker's first batch otherwise waits seconds for both on a busy box, and an incarnation killed
     * meanwhile never completes one (nor halts after a Kafka acknowledgement). The relay's own
     * producer still connects on first use.
     */
    private static void warmUpKafka(String bootstrap, String topic) {
        Map<String, Object> config = Map.of(
                "bootstrap.servers",
                bootstrap,
                "key.serializer",
                org.apache.kafka.common.serialization.ByteArraySerializer.class,
                "value.serializer",
                org.apache.kafka.common.serialization.ByteArraySerializer.class,
                "max.block.ms",
                10_000);
        try (org.apache.kafka.clients.producer.KafkaProducer<byte[], byte[]> producer =
                new org.apache.kafka.clients.producer.KafkaProducer<>(config)) {
            producer.partitionsFor(topic);
        } catch (RuntimeException e) {
            // the relay connects on its own when the first batch comes
        }
    }

    /** The AMQP and NATS handlers, wrapped. */
    @Override
    public List<HandlerRegistration> handlers() {
        return List.of(wrap(amqp.registration()), wrap(nats.registration()));
    }

    /** The Kafka batch handler, wrapped. */
    @Override
    public void customizePostbox(Postbox.Builder postbox) {
        postbox.batchHandler(wrap(kafka.registration()));
    }

    private HandlerRegistration wrap(HandlerRegistration r) {
        JobHandler relay = r.handler();
        return HandlerRegistration.of(r.kind(), (OutcomeHandler) job -> {
                    crash.started(job);
                    if (deferred(job)) {
                        fireAndForget(() -> relay.attempt(job));
                        return JobOutcome.done(); // no broker has it: not an after-handler (after-ack) event
                    }
                    JobOutcome outcome = relay.attempt(asSent(job));
                    if (outcome instanceof JobOutcome.Done && haltsAfterAck(job)) {
                        crash.afterHandler(job);
                    }
                    return outcome;
                })
                .retryPolicy(r.retryPolicy());
    }

    private BatchHandlerRegistration wrap(BatchHandlerRegistration r) {
        BatchJobHandler relay = r.handler();
        return BatchHandlerRegistration.of(r.kind(), batch -> {
                    List<Job> now = new ArrayList<>();
                    List<Job> heldBack = new ArrayList<>();
                    for (Job job : batch.jobs()) {
                        crash.started(job);
                        (deferred(job) ? heldBack : now).add(job);
                    }
                    if (!heldBack.isEmpty()) {
                        fireAndForget(() -> relay.handle(new SentBatch(batch.kind(), heldBack, null)));
                    }
                    if (!now.isEmpty()) {
                        relay.handle(new SentBatch(batch.kind(), now, batch));
                        // every record acknowledged (or its job failed); the completion is not written yet
                        now.stream().filter(this::haltsAfterAck).findFirst().ifPresent(crash::afterHandler);
                    }
                })
                .maxBatchSize(r.maxBatchSize())
                .retryPolicy(r.retryPolicy());
    }

    private interface Send {
        void run() throws Exception;
    }

    /** The completes-before-ack defect: the message goes out later, whatever happens to this process. */
    private void fireAndForget(Send send) {
        later.schedule(
                () -> {
                    try {
                        send.run();
                    } catch (Exception e) {
                        // fire and forget: nobody waits for the outcome
                    }
                },
                DEFERRED.toMillis(),
                TimeUnit.MILLISECONDS);
    }

    private boolean deferred(Job job) {
        return completesBeforeAck && job.orderingKey().isEmpty() && seq(job) % 2 == 0;
    }

    /**
     * Whether an {@code after-handler} halt may come after this job's acknowledgement: any job's, but
     * under {@link #KEY_PER_SEND} only a job whose key the defect changes, so that every such halt
     * redelivers at least one message under a second key, whichever broker it is armed for.
     */
    private boolean haltsAfterAck(Job job) {
        return !keyPerSend || newKeyPerSend(job);
    }

    private boolean newKeyPerSend(Job job) {
        return keyPerSend && job.orderingKey().isEmpty() && seq(job) % 2 == 1;
    }

    /** The job as the relay sends it: itself, or under a control a copy with a changed key. */
    private Job asSent(Job job) {
        boolean newKey = newKeyPerSend(job);
        boolean noRecordKey = kafkaWithoutRecordKey && job.kind().equals(KafkaRelay.KIND);
        if (!newKey && !noRecordKey) {
            return job;
        }
        return job.toBuilder()
                .idempotencyKey(
                        newKey
                                ? job.stableKey() + "~" + UUID.randomUUID()
                                : job.idempotencyKey().orElse(null))
                .orderingKey(noRecordKey ? null : job.orderingKey().orElse(null))
                .build();
    }

    private static long seq(Job job) {
        return ((Number) job.payload(Map.class).get("seq")).longValue();
    }

    /** Members of a batch as the relay sends them; a failure is reported on the engine's own member. */
    private final class SentBatch implements JobBatch {
        private final String kind;
        private final List<Job> jobs = new ArrayList<>();
        private final Map<Job, Job> members = new IdentityHashMap<>();
        private final JobBatch engine;

        /** {@code engine} null: nobody hears of failures (fire and forget). */
        SentBatch(String kind, List<Job> members, JobBatch engine) {
            this.kind = kind;
            this.engine = engine;
            for (Job member : members) {
                Job sent = asSent(member);
                jobs.add(sent);
                this.members.put(sent, member);
            }
        }

        @Override
        public String kind() {
            return kind;
        }

        @Override
        public List<Job> jobs() {
            return jobs;
        }

        @Override
        public void fail(Job job, Throwable error) {
            Job member = members.get(job);
            if (member == null) {
                throw new IllegalArgumentException("job " + job.id() + " is not a member of this batch");
            }
            if (engine != null) {
                engine.fail(member, error);
            }
        }
    }

    @Override
    public void close() {
        later.shutdownNow();
        kafka.close();
        amqp.close();
        nats.close();
    }
}
