package dev.postbox.kafka.internal;

import dev.postbox.PermanentJobFailure;
import dev.postbox.kafka.KafkaDestination;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.OutOfOrderSequenceException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.RecordBatchTooLargeException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.jspecify.annotations.Nullable;

/**
 * What a failed send means for its job. Records the broker can never take (too large, a topic name
 * it refuses, a producer not authorised for the topic) are permanent: dead-lettered at once with the
 * broker's reason. Everything else (timeouts, leader changes, a broker that is down, a topic not
 * yet created) is retried with backoff.
 */
final class SendFailures {

    private SendFailures() {}

    /** The failure to report for the job, with the broker's error text. */
    static RuntimeException classify(KafkaDestination destination, Exception error) {
        String message = describe(destination, error);
        if (permanent(error)) {
            return new PermanentJobFailure(message, error);
        }
        return new KafkaSendException(message, error);
    }

    static boolean permanent(Exception error) {
        if (error instanceof RetriableException) {
            return false;
        }
        return error instanceof RecordTooLargeException
                || error instanceof RecordBatchTooLargeException
                || error instanceof InvalidTopicException
                || error instanceof AuthorizationException
                || error instanceof SerializationException
                || error instanceof UnsupportedVersionException;
    }

    /** Errors after which the producer cannot go on: it is replaced before the next batch. */
    static boolean breaksProducer(Exception error) {
        return error instanceof ProducerFencedException
                || error instanceof OutOfOrderSequenceException
                || error instanceof IllegalStateException;
    }

    static String describe(KafkaDestination d, Exception error) {
        String text = error.getMessage() != null ? error.getMessage() : "(no message)";
        return "Kafka destination '" + d.name() + "' (topic '" + d.topic() + "'): "
                + error.getClass().getSimpleName() + ": " + text;
    }

    /** A retryable send failure; its message is what the broker or the client said. */
    static final class KafkaSendException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        KafkaSendException(String message, @Nullable Throwable cause) {
            super(message, cause);
        }
    }
}
