package dev.postbox.internal;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** The outage behaviour every database loop shares: jittered capped backoff, rate-limited warnings. */
class FailureBackoffTest {

    private final Logger log = (Logger) LoggerFactory.getLogger("test.backoff");
    private final ListAppender<ILoggingEvent> events = new ListAppender<>();
    private final AtomicLong clock = new AtomicLong(1_000_000_000L);
    private final SQLException down = new SQLException("Connection refused", "08001");

    @BeforeEach
    void capture() {
        events.start();
        log.addAppender(events);
        log.setLevel(Level.DEBUG);
    }

    @AfterEach
    void release() {
        log.detachAppender(events);
    }

    private void advance(Duration d) {
        clock.addAndGet(d.toNanos());
    }

    private List<ILoggingEvent> at(Level level) {
        return events.list.stream().filter(e -> e.getLevel() == level).toList();
    }

    @Test
    void delaysAreFullJitterUnderAnExponentialCeilingAndTheCap() {
        FailureBackoff backoff =
                new FailureBackoff(log, "Claiming jobs", Duration.ofSeconds(10), clock::get, new Random(42));
        List<Long> delays = new ArrayList<>();
        for (int n = 1; n <= 2000; n++) {
            delays.add(backoff.failed(down, "nothing is claimed").toMillis());
        }
        // The n-th failure waits random(0, min(10 s, 100 ms * 2^(n-1))).
        for (int n = 1; n <= 8; n++) {
            assertThat(delays.get(n - 1)).as("failure %s", n).isBetween(0L, Math.min(10_000L, 100L << (n - 1)));
        }
        List<Long> capped = delays.subList(20, delays.size());
        assertThat(capped).allSatisfy(d -> assertThat(d).isBetween(0L, 10_000L));
        assertThat(capped.stream().mapToLong(Long::longValue).max().orElseThrow())
                .as("the cap is reached")
                .isGreaterThan(9_500L);
        assertThat(capped.stream().mapToLong(Long::longValue).min().orElseThrow())
                .as("full jitter: down to zero")
                .isLessThan(500L);
        assertThat(capped.stream().mapToLong(Long::longValue).average().orElseThrow())
                .isBetween(4_500.0, 5_500.0);
    }

    @Test
    void atMostOneWarningWithItsStackTraceEvery30SecondsThenOneInfoOnRecovery() {
        FailureBackoff backoff =
                new FailureBackoff(log, "Claiming jobs", Duration.ofSeconds(10), clock::get, new Random(1));

        for (int i = 0; i < 50; i++) { // 50 failures over 24.5 s
            backoff.failed(down, "nothing is claimed");
            advance(Duration.ofMillis(500));
        }
        assertThat(at(Level.WARN)).hasSize(1);
        ILoggingEvent first = at(Level.WARN).get(0);
        assertThat(first.getThrowableProxy()).as("the stack trace").isNotNull();
        assertThat(first.getFormattedMessage())
                .startsWith("Claiming jobs failed (1 in a row); nothing is claimed; next try in ")
                .endsWith("Further failures are logged at most every 30 s");

        advance(Duration.ofMillis(5_500)); // 30 s after the first warning
        backoff.failed(down, "nothing is claimed");
        assertThat(at(Level.WARN)).hasSize(2);
        assertThat(at(Level.WARN).get(1).getFormattedMessage())
                .startsWith("Claiming jobs failed (51 in a row, 49 not logged since the last warning);");

        advance(Duration.ofSeconds(2));
        backoff.succeeded();
        backoff.succeeded();
        assertThat(at(Level.INFO)).hasSize(1);
        assertThat(at(Level.INFO).get(0).getFormattedMessage())
                .isEqualTo("Claiming jobs works again after 51 failures in 32500 ms");
    }

    @Test
    void aFlappingDatabaseStillGetsAtMostOneWarningEvery30Seconds() {
        FailureBackoff backoff =
                new FailureBackoff(log, "Heartbeat of held jobs", Duration.ZERO, clock::get, new Random(1));
        for (int i = 0; i < 20; i++) { // fail, recover, fail ... every second
            assertThat(backoff.failed(down, "leases may lapse")).isZero();
            advance(Duration.ofMillis(500));
            backoff.succeeded();
            advance(Duration.ofMillis(500));
        }
        assertThat(at(Level.WARN)).hasSize(1);
        assertThat(at(Level.WARN).get(0).getFormattedMessage())
                .as("a scheduled task names no retry delay")
                .isEqualTo("Heartbeat of held jobs failed (1 in a row); leases may lapse. Further failures are"
                        + " logged at most every 30 s");
        assertThat(at(Level.INFO))
                .as("only the streak that was warned about is reported as recovered")
                .hasSize(1);

        advance(Duration.ofSeconds(11)); // 31 s after the warning
        backoff.failed(down, "leases may lapse");
        assertThat(at(Level.WARN)).hasSize(2);
        assertThat(at(Level.WARN).get(1).getFormattedMessage())
                .startsWith("Heartbeat of held jobs failed (1 in a row, 19 not logged since the last warning);");
    }
}
