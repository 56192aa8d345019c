package dev.postbox.http.inbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.zaxxer.hikari.HikariDataSource;
import dev.postbox.http.signing.WebhookSecret;
import dev.postbox.http.signing.WebhookSigner;
import dev.postbox.testing.TestDatabase;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** Issue 12 items 7 and 8: what an unsigned caller can do to the receiving side. */
class InboxHostileInputTest {

    private final WebhookSecret secret = WebhookSecret.generate();
    private final WebhookSecret next = WebhookSecret.generate();
    private final byte[] body = "{\"a\":1}".getBytes(StandardCharsets.UTF_8);
    private final AtomicInteger applied = new AtomicInteger();
    private HikariDataSource db;
    private WebhookInbox inbox;

    @BeforeEach
    void setUp() {
        db = TestDatabase.create();
        inbox = WebhookInbox.builder(db)
                .secret(secret)
                .secret(next)
                .maxBodyBytes(1024)
                .build();
    }

    @AfterEach
    void tearDown() {
        TestDatabase.drop(db);
    }

    private InboxResult receive(String id, String timestamp, String signature, byte[] payload) {
        return inbox.receive(
                Map.of("webhook-id", id, "webhook-timestamp", timestamp, "webhook-signature", signature),
                payload,
                m -> applied.incrementAndGet());
    }

    @Test
    void timestampsOf17To19DigitsAreA401NotA500() {
        for (String timestamp : new String[] {
            "31556889864403200",
            "99999999999999999",
            "999999999999999999",
            "9223372036854775807",
            "99999999999999999999"
        }) {
            InboxResult r = receive("m", timestamp, "v1,AAAA", body);
            assertThat(r.httpStatus()).as(timestamp).isEqualTo(401);
            assertThat(r.outcome()).isEqualTo(InboxResult.Outcome.REJECTED);
        }
        assertThat(applied).hasValue(0);
    }

    @Test
    void theRejectionNamesNeitherTheClockNorTheNumberOfSecrets() {
        long now = Instant.now().getEpochSecond();
        String today = Instant.now().toString().substring(0, 10);
        InboxResult stale =
                receive("m", Long.toString(now - 3600), WebhookSigner.of(secret).sign("m", now - 3600, body), body);
        InboxResult future =
                receive("m", Long.toString(now + 3600), WebhookSigner.of(secret).sign("m", now + 3600, body), body);
        InboxResult forged = receive(
                "m",
                Long.toString(now),
                WebhookSigner.of(WebhookSecret.generate()).sign("m", now, body),
                body);
        InboxResult garbage = receive("m", "12ab<script>", "v1,AAAA", body);
        assertThat(stale.reason()).startsWith("TIMESTAMP_TOO_OLD");
        assertThat(future.reason()).startsWith("TIMESTAMP_TOO_NEW");
        assertThat(forged.reason()).startsWith("NO_MATCHING_SIGNATURE");
        assertThat(garbage.reason()).startsWith("INVALID_TIMESTAMP").doesNotContain("<script>");
        for (InboxResult r : new InboxResult[] {stale, future, forged, garbage}) {
            assertThat(r.httpStatus()).isEqualTo(401);
            assertThat(r.reason())
                    .doesNotContain(today)
                    .doesNotContain(Long.toString(now).substring(0, 6))
                    .doesNotContain("2 ")
                    .doesNotContain("secret(s)");
        }
        assertThat(applied).hasValue(0);
    }

    @Test
    void aFloodOfForgedRequestsLogsOneLineNotOnePerRequest() {
        Logger logger = (Logger) LoggerFactory.getLogger(WebhookInbox.class);
        ListAppender<ILoggingEvent> lines = new ListAppender<>();
        lines.start();
        logger.addAppender(lines);
        logger.setLevel(Level.INFO);
        try {
            long now = Instant.now().getEpochSecond();
            for (int i = 0; i < 200; i++) {
                receive("m" + i, Long.toString(now), "v1,AAAA", body);
            }
            assertThat(lines.list).hasSize(1);
            assertThat(lines.list.get(0).getLevel()).isEqualTo(Level.WARN);
            assertThat(lines.list.get(0).getFormattedMessage()).contains("NO_MATCHING_SIGNATURE");
        } finally {
            logger.detachAppender(lines);
            logger.setLevel(null);
        }
    }

    @Test
    void aBodyOverTheCapIsRefusedWith413WithoutBeingBuffered() {
        long now = Instant.now().getEpochSecond();
        byte[] big = new byte[2000];
        InboxResult r =
                receive("m", Long.toString(now), WebhookSigner.of(secret).sign("m", now, big), big);
        assertThat(r.outcome()).isEqualTo(InboxResult.Outcome.TOO_LARGE);
        assertThat(r.httpStatus()).isEqualTo(413);
        // An endless stream: the inbox reads one byte past the cap, then answers.
        AtomicLong read = new AtomicLong();
        InputStream endless = new InputStream() {
            @Override
            public int read() {
                read.incrementAndGet();
                return 'x';
            }
        };
        InboxResult streamed = inbox.receive(
                Map.of("webhook-id", "m", "webhook-timestamp", Long.toString(now), "webhook-signature", "v1,AAAA")::get,
                endless,
                m -> applied.incrementAndGet());
        assertThat(streamed.httpStatus()).isEqualTo(413);
        assertThat(read.get()).isEqualTo(1025);
        // Within the cap, the stream form verifies and applies as usual.
        InboxResult ok = inbox.receive(
                Map.of(
                        "webhook-id", "ok",
                        "webhook-timestamp", Long.toString(now),
                        "webhook-signature", WebhookSigner.of(next).sign("ok", now, body))::get,
                new java.io.ByteArrayInputStream(body),
                m -> applied.incrementAndGet());
        assertThat(ok.outcome()).isEqualTo(InboxResult.Outcome.APPLIED);
        assertThat(applied).hasValue(1);
    }

    @Test
    void purgingSoonerThanTheToleranceIsRefused() {
        assertThatThrownBy(() -> inbox.purgeOlderThan(Duration.ofMinutes(1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContainingAll("shorter than the timestamp tolerance", "PT5M", "replay");
        assertThat(inbox.purgeOlderThan(Duration.ofMinutes(5))).isZero();
    }
}
