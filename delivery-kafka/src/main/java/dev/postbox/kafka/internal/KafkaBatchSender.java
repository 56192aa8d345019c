package dev.postbox.kafka.internal;

import dev.postbox.BatchJobHandler;
import dev.postbox.Job;
import dev.postbox.JobBatch;
import dev.postbox.PermanentJobFailure;
import dev.postbox.SnoozeJob;
import dev.postbox.kafka.KafkaDestination;
import dev.postbox.kafka.KafkaSendListener;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.jspecify.annotations.Nullable;

/**
 * Sends a batch of relay jobs through the relay's producer and returns once the broker has
 * acknowledged or refused every record (or the send timeout has passed): the acknowledged members
 * are then done, each refused one fails with the broker's reason. The record key is the job's
 * ordering key, so that records of one key land in one partition, in the order the engine runs them
 * (one job per ordering key at a time); the job's stable key and trace context are headers.
 */
public final class KafkaBatchSender implements BatchJobHandler {

    /** Header with the job's stable key, the same on every attempt: what a consumer deduplicates by. */
    public static final String KEY_HEADER = "postbox-key";

    /** The trace context headers a job may carry, sent as record headers of the same name. */
    public static final List<String> TRACE_HEADERS = List.of("traceparent", "tracestate", "baggage");

    private static final Duration CALLBACK_MARGIN = Duration.ofSeconds(5);

    private final Map<String, KafkaDestination> destinations;
    private final RelayProducer producer;
    private final Duration sendTimeout;
    private final DestinationRateLimits limits = new DestinationRateLimits(System::nanoTime);
    private final KafkaSendListener listener;

    public KafkaBatchSender(
            Map<String, KafkaDestination> destinations,
            RelayProducer producer,
            Duration sendTimeout,
            KafkaSendListener listener) {
        this.destinations = Map.copyOf(destinations);
        this.producer = producer;
        this.sendTimeout = sendTimeout;
        this.listener = listener;
    }

    @Override
    public void handle(JobBatch batch) throws InterruptedException {
        Producer<byte[], byte[]> kafka = producer.get();
        List<Job> jobs = batch.jobs();
        CountDownLatch pending = new CountDownLatch(jobs.size());
        Map<Job, AtomicBoolean> settled = new HashMap<>();
        Map<Job, KafkaDestination> sentTo = new HashMap<>();
        Map<String, Integer> refusedByLimit = new HashMap<>();
        // A topic the producer has no metadata for makes every send() block up to the send timeout:
        // ask once per topic and batch, and fail that destination's jobs without sending.
        Map<String, @Nullable RuntimeException> unavailable = new HashMap<>();
        for (Job job : jobs) {
            AtomicBoolean done = new AtomicBoolean();
            settled.put(job, done);
            KafkaDestination destination = destination(batch, job);
            if (destination == null) {
                settle(done, pending);
                continue;
            }
            if (!unavailable.containsKey(destination.topic())) {
                unavailable.put(destination.topic(), metadata(kafka, destination));
            }
            RuntimeException noTopic = unavailable.get(destination.topic());
            if (noTopic != null) {
                listener.failed(destination, noTopic instanceof PermanentJobFailure);
                batch.fail(job, noTopic);
                settle(done, pending);
                continue;
            }
            Duration wait = limits.acquire(destination);
            if (!wait.isZero()) {
                // Spread the refused ones at the limit's rate instead of waking them all at once.
                int queued = refusedByLimit.merge(destination.name(), 1, Integer::sum) - 1;
                Duration spread = Duration.ofNanos(queued * (1_000_000_000L / destination.maxPerSecond()));
                listener.rateLimited(destination);
                batch.fail(
                        job,
                        new SnoozeJob(
                                "Kafka destination '" + destination.name() + "' is at its rate limit of "
                                        + destination.maxPerSecond() + "/s",
                                wait.plus(spread)));
                settle(done, pending);
                continue;
            }
            sentTo.put(job, destination);
            long sentAt = System.nanoTime();
            try {
                kafka.send(record(job, destination), (metadata, error) -> {
                    if (!done.compareAndSet(false, true)) {
                        return; // given up on already
                    }
                    if (error == null) {
                        listener.acknowledged(destination, System.nanoTime() - sentAt);
                    } else {
                        failed(batch, job, destination, error, kafka);
                    }
                    pending.countDown();
                });
            } catch (KafkaException | IllegalStateException e) {
                if (done.compareAndSet(false, true)) {
                    failed(batch, job, destination, e, kafka);
                    pending.countDown();
                }
            }
        }
        if (!pending.await(sendTimeout.plus(CALLBACK_MARGIN).toMillis(), TimeUnit.MILLISECONDS)) {
            for (Job job : jobs) {
                KafkaDestination destination = sentTo.get(job);
                AtomicBoolean once = settled.get(job);
                if (destination != null && once != null && once.compareAndSet(false, true)) {
                    listener.failed(destination, false);
                    batch.fail(
                            job,
                            new SendFailures.KafkaSendException(
                                    "Kafka destination '" + destination.name() + "' (topic '" + destination.topic()
                                            + "'): no acknowledgement from the broker within "
                                            + sendTimeout.toMillis() + " ms",
                                    null));
                }
            }
        }
    }

    /** Null when the producer knows the topic's partitions, else the failure for its jobs. */
    private static @Nullable RuntimeException metadata(Producer<byte[], byte[]> kafka, KafkaDestination destination) {
        try {
            kafka.partitionsFor(destination.topic());
            return null;
        } catch (KafkaException e) {
            return SendFailures.classify(destination, e);
        }
    }

    private @Nullable KafkaDestination destination(JobBatch batch, Job job) {
        String name = job.endpoint().orElse(null);
        if (name == null) {
            batch.fail(
                    job,
                    new PermanentJobFailure(
                            "relay job " + job.id() + " names no destination: enqueue it with KafkaRelay.message"));
            return null;
        }
        KafkaDestination destination = destinations.get(name);
        if (destination == null) {
            batch.fail(
                    job,
                    new IllegalStateException("Kafka destination '" + name + "' is not configured in this process;"
                            + " add it to the relay (it is retried, and dead-lettered when the budget ends)"));
        }
        return destination;
    }

    private void failed(
            JobBatch batch, Job job, KafkaDestination destination, Exception error, Producer<byte[], byte[]> kafka) {
        RuntimeException failure = SendFailures.classify(destination, error);
        listener.failed(destination, failure instanceof PermanentJobFailure);
        batch.fail(job, failure);
        if (SendFailures.breaksProducer(error)) {
            producer.discard(kafka);
        }
    }

    private static void settle(AtomicBoolean done, CountDownLatch pending) {
        done.set(true);
        pending.countDown();
    }

    static ProducerRecord<byte[], byte[]> record(Job job, KafkaDestination destination) {
        RecordHeaders headers = new RecordHeaders();
        headers.add(KEY_HEADER, utf8(job.stableKey()));
        headers.add("content-type", utf8("application/json"));
        for (String name : TRACE_HEADERS) {
            String value = job.headers().get(name);
            if (value != null) {
                headers.add(name, utf8(value));
            }
        }
        byte[] key = job.orderingKey().map(KafkaBatchSender::utf8).orElse(null);
        return new ProducerRecord<>(destination.topic(), null, null, key, utf8(job.payloadJson()), headers);
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
