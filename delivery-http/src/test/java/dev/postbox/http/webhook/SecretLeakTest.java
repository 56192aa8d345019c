package dev.postbox.http.webhook;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.ThrowableProxyUtil;
import ch.qos.logback.core.read.ListAppender;
import dev.postbox.RetryPolicy;
import dev.postbox.http.EndpointTimeouts;
import dev.postbox.http.signing.WebhookSecret;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * Issue 12 item 6: durations under 1 ms are refused (they were stored as 0, violated a CHECK and gave
 * OkHttp no timeout), and a database error on an endpoint write never carries the row, secret and
 * header values included, into an exception message, a stack trace or a log line.
 */
class SecretLeakTest {

    @Test
    void durationsUnderOneMillisecondAreRefused() {
        Duration half = Duration.ofNanos(500_000);
        assertThatThrownBy(() -> new EndpointTimeouts(half, Duration.ofSeconds(1), Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContainingAll("connectTimeout", "at least 1 ms");
        assertThatThrownBy(() -> new EndpointTimeouts(Duration.ofSeconds(1), Duration.ofSeconds(1), half))
                .hasMessageContainingAll("callTimeout", "at least 1 ms");
        RetryPolicy subMilli =
                RetryPolicy.custom().base(half).cap(Duration.ofSeconds(1)).build();
        assertThatThrownBy(() -> Endpoint.builder("shop", "https://hooks.example.com/in")
                        .secret(WebhookSecret.generate())
                        .retryPolicy(subMilli)
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContainingAll("endpoint 'shop'", "retryPolicy.base", "at least 1 ms");
    }

    @Test
    void aConstraintFailureOnAnEndpointWriteLeaksNoSecret() {
        Logger root = (Logger) LoggerFactory.getLogger(Logger.ROOT_LOGGER_NAME);
        ListAppender<ILoggingEvent> lines = new ListAppender<>();
        lines.start();
        root.addAppender(lines);
        try (Harness h = new Harness()) {
            HttpDeliveryModule http = h.node().http();
            // A constraint Postbox does not check first: the write reaches the database and fails there.
            h.exec("ALTER TABLE outbox_endpoint ADD CONSTRAINT forced_failure CHECK (description <> 'boom')");
            WebhookSecret secret = WebhookSecret.generate();
            String token = "Bearer tok-7f3a9c";
            String url = "https://hooks.example.com/in/acct-991";
            Endpoint endpoint = Endpoint.builder("shop", url)
                    .secret(secret)
                    .header("Authorization", token)
                    .description("boom")
                    .build();
            // update: an endpoint stored without the forbidden value, then changed to it
            Endpoint other = Endpoint.builder("other", url)
                    .secret(secret)
                    .header("Authorization", token)
                    .description("fine")
                    .build();
            http.endpoints().register(other);
            Endpoint update = other.toBuilder().description("boom").build();
            for (Runnable write : new Runnable[] {
                () -> http.endpoints().register(endpoint),
                () -> http.endpoints().put(endpoint),
                () -> http.endpoints().update(update)
            }) {
                Throwable thrown = catchThrowable(write);
                assertThat(thrown).hasMessageContaining("forced_failure");
                StringWriter trace = new StringWriter();
                thrown.printStackTrace(new PrintWriter(trace));
                assertThat(trace.toString())
                        .contains("forced_failure")
                        .doesNotContain(secret.serialized())
                        .doesNotContain("tok-7f3a9c")
                        .doesNotContain("acct-991")
                        .doesNotContain("Failing row");
            }
            assertThat(lines.list).allSatisfy(line -> {
                String text = line.getFormattedMessage()
                        + (line.getThrowableProxy() == null
                                ? ""
                                : ThrowableProxyUtil.asString(line.getThrowableProxy()));
                assertThat(text).doesNotContain(secret.serialized()).doesNotContain("tok-7f3a9c");
            });
            assertThat(h.count("SELECT count(*) FROM outbox_endpoint WHERE description = 'boom'"))
                    .isZero();
        } finally {
            root.detachAppender(lines);
        }
    }

    private static Throwable catchThrowable(Runnable r) {
        try {
            r.run();
        } catch (Throwable t) {
            return t;
        }
        throw new AssertionError("the write did not fail");
    }
}
