package dev.postbox.kafka.internal;

import dev.postbox.BatchJobHandler;
import dev.postbox.Job;
import dev.postbox.JobBatch;
import dev.postbox.PermanentJobFailure;
import dev.postbox.RateLimits;
import dev.postbox.RelayDestination;
import dev.postbox.RelayMessage;
import dev.postbox.SnoozeJob;
import dev.postbox.kafka.KafkaDestination;
import dev.postbox.kafka.KafkaSendListener;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
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
 * (one job per ordering key at a time); the job's stable key and trace context are headers. A
 * rate-limited destination takes the permits for its jobs of the batch at once from its shared bucket;
 * the jobs it gets none for are snoozed to their slots of the limit's line.
 */
public final class KafkaBatchSender implements BatchJobHandler {

    private static final Duration CALLBACK_MARGIN = Duration.ofSeconds(5);

    /** Added to a rate-limit wait, so that a refused job never reads as granted (a zero wait). */
    private static final Duration MIN_WAIT = Duration.ofMillis(1);

    private final Map<String, KafkaDestination> destinations;
    private final RelayProducer producer;
    private final Duration sendTimeout;
    private final KafkaSendListener listener;
    private volatile Map<String, RateLimits.Bucket> buckets = Map.of();

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

    /** Creates (or reconfigures) the shared bucket of each rate-limited destination. */
    public void install(RateLimits limits) {
        buckets = RelayDestination.buckets(limits, "kafka", destinations.values());
    }

    @Override
    public void handle(JobBatch batch) throws InterruptedException {
        Producer<byte[], byte[]> kafka = producer.get();
        List<Job> jobs = batch.jobs();
        CountDownLatch pending = new CountDownLatch(jobs.size());
        Map<Job, AtomicBoolean> settled = new HashMap<>();
        Map<Job, KafkaDestination> sentTo = new HashMap<>();
        // Per rate-limited destination: the waits of the batch's jobs that got no permit, in order
        // (a granted permit is a zero wait).
        Map<String, Deque<Duration>> permits = new HashMap<>();
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
            Duration wait;
            try {
                wait = permit(destination, jobs, permits);
            } catch (IllegalStateException e) { // not installed, or the database unreachable: retried
                listener.failed(destination, false);
                batch.fail(job, e);
                settle(done, pending);
                continue;
            }
            if (!wait.isZero()) {
                listener.rateLimited(destination);
                batch.fail(
                        job,
                        new SnoozeJob(
                                "Kafka destination '" + destination.name() + "' is at its rate limit of "
                                        + destination.maxPerSecond() + "/s",
                                wait));
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

    /**
     * Zero when the job may be sent, else how long it waits for the destination's rate limit. The
     * first job of a destination takes the permits of all its jobs in the batch in one statement.
     */
    private Duration permit(KafkaDestination destination, List<Job> jobs, Map<String, Deque<Duration>> permits) {
        if (destination.maxPerSecond() == 0) {
            return Duration.ZERO;
        }
        Deque<Duration> waits = permits.get(destination.name());
        if (waits == null) {
            RateLimits.Bucket bucket = buckets.get(destination.name());
            if (bucket == null) {
                throw new IllegalStateException("Kafka destination '" + destination.name() + "' has a rate limit,"
                        + " but the relay is not installed in this engine: add it with Postbox.Builder.module(relay)");
            }
            int wanted = (int) jobs.stream()
                    .filter(j -> j.endpoint().filter(destination.name()::equals).isPresent())
                    .count();
            RateLimits.Permits got = bucket.take(wanted);
            waits = new ArrayDeque<>();
            for (int i = 0; i < wanted; i++) {
                Duration refused = got.waitOf(Math.max(0, i - got.granted()));
                waits.add(i < got.granted() ? Duration.ZERO : refused.plus(MIN_WAIT));
            }
            permits.put(destination.name(), waits);
        }
        Duration wait = waits.poll();
        return wait == null ? Duration.ZERO : wait;
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
        RelayMessage message = RelayMessage.of(job);
        RecordHeaders headers = new RecordHeaders();
        message.headers().forEach((name, value) -> headers.add(name, utf8(value)));
        headers.add("content-type", utf8(RelayMessage.CONTENT_TYPE));
        byte[] key = message.orderingKey().map(KafkaBatchSender::utf8).orElse(null);
        return new ProducerRecord<>(destination.topic(), null, null, key, message.body(), headers);
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
