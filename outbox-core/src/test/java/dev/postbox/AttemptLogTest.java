package dev.postbox;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** The per-attempt log line an on-call engineer greps for. */
class AttemptLogTest extends DatabaseTest {

    private static final String TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    private final Logger logger = (Logger) LoggerFactory.getLogger("dev.postbox.attempt");
    private final ListAppender<ILoggingEvent> lines = new ListAppender<>();

    @BeforeEach
    void capture() {
        lines.start();
        logger.addAppender(lines);
        logger.setLevel(Level.INFO);
    }

    @AfterEach
    void release() {
        logger.detachAppender(lines);
        logger.setLevel(null);
    }

    @Test
    void slowSuccessesAndFailuresAreLoggedWithIdKindAttemptOutcomeDurationAndTraceId() {
        Postbox postbox = track(Postbox.builder(dataSource)
                .handler("slow", job -> {})
                .handler("broken", job -> {
                    throw new IllegalStateException("no stock");
                })
                .config(PostboxConfig.custom()
                        .slowAttemptThreshold(Duration.ZERO)
                        .build())
                .build());
        long slow = enqueueCommitted(
                        postbox.outbox(),
                        JobRequest.builder("slow")
                                .payload(Map.of("secret", "s3cr3t"))
                                .header("traceparent", TRACEPARENT)
                                .build())
                .jobId();
        long broken = enqueueCommitted(postbox.outbox(), JobRequest.of("broken", Map.of()))
                .jobId();

        postbox.runDueJobs();

        assertThat(lines.list)
                .extracting(ILoggingEvent::getFormattedMessage)
                .anySatisfy(line -> assertThat(line)
                        .startsWith("job=" + slow + " kind=slow queue=default attempt=1 outcome=done durationMs=")
                        .contains("traceId=4bf92f3577b34da6a3ce929d0e0e4736")
                        .contains("slow=true"))
                .anySatisfy(line -> assertThat(line)
                        .startsWith("job=" + broken + " kind=broken queue=default attempt=1 outcome=retry")
                        .contains("error=\"java.lang.IllegalStateException: no stock\""))
                .noneSatisfy(line -> assertThat(line).contains("s3cr3t"));
    }
}
