package dev.postbox.http.webhook;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import dev.postbox.RetryPolicy;
import dev.postbox.http.AttemptResult;
import dev.postbox.http.DeliveryOutcome;
import dev.postbox.http.DeliveryRequest;
import dev.postbox.http.HttpDelivery;
import dev.postbox.http.inbox.InboxResult;
import dev.postbox.http.inbox.WebhookInbox;
import dev.postbox.http.signing.WebhookSecret;
import dev.postbox.http.signing.WebhookSigner;
import dev.postbox.testing.TestDatabase;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;

class InboxTest {

    private HikariDataSource receiverDb;
    private JdbcTemplate jdbc;
    private final WebhookSecret secret = WebhookSecret.generate();

    @BeforeEach
    void setUp() {
        receiverDb = TestDatabase.create();
        jdbc = new JdbcTemplate(receiverDb);
        jdbc.execute("CREATE TABLE account (id int PRIMARY KEY, credits int NOT NULL)");
        jdbc.update("INSERT INTO account VALUES (1, 0)");
    }

    @AfterEach
    void tearDown() {
        TestDatabase.drop(receiverDb);
    }

    /** The receiver's endpoint: verify, dedupe, add one credit, all in one transaction. */
    private Receiver.Responder endpoint(WebhookInbox inbox) {
        return (exchange, body) -> {
            InboxResult result = inbox.receive(
                    exchange.getRequestHeaders()::getFirst,
                    body,
                    message -> jdbc.update("UPDATE account SET credits = credits + 1 WHERE id = 1"));
            return Receiver.Reply.status(result.httpStatus());
        };
    }

    @Test
    void theSameDeliverySentFiveTimesIsAppliedOnce() throws Exception {
        WebhookInbox inbox = WebhookInbox.builder(receiverDb).secret(secret).build();
        try (Receiver receiver = new Receiver();
                HttpDelivery delivery = HttpDelivery.builder()
                        .ssrfPolicy(Harness.loopbackAllowed())
                        .build()) {
            receiver.responder = endpoint(inbox);
            DeliveryRequest request = DeliveryRequest.builder()
                    .url(receiver.url("/hooks"))
                    .messageId("order-42-paid")
                    .body("{\"order\":42}")
                    .signer(WebhookSigner.of(secret))
                    .build();
            int[] statuses = new int[5];
            for (int i = 0; i < 5; i++) {
                AttemptResult r = delivery.deliver(request);
                assertThat(r.outcome()).isEqualTo(DeliveryOutcome.DONE);
                statuses[i] = r.statusCode();
            }
            assertThat(statuses).containsExactly(204, 200, 200, 200, 200);
            assertThat(jdbc.queryForObject("SELECT credits FROM account", Integer.class))
                    .isEqualTo(1);
            assertThat(jdbc.queryForObject("SELECT count(*) FROM postbox_inbox", Integer.class))
                    .isEqualTo(1);

            // A forged signature is rejected with 401 and changes nothing.
            AttemptResult forged = delivery.deliver(DeliveryRequest.builder()
                    .url(receiver.url("/hooks"))
                    .messageId("order-43-paid")
                    .body("{\"order\":43}")
                    .signer(WebhookSigner.of(WebhookSecret.generate()))
                    .build());
            assertThat(forged.statusCode()).isEqualTo(401);
            assertThat(jdbc.queryForObject("SELECT credits FROM account", Integer.class))
                    .isEqualTo(1);
        }
    }

    @Test
    void rotationAcceptsBothSecretsAndRejectsBadOnes() {
        WebhookSecret next = WebhookSecret.generate();
        WebhookInbox inbox =
                WebhookInbox.builder(receiverDb).secret(next).secret(secret).build();
        long now = System.currentTimeMillis() / 1000;
        byte[] body = "{\"a\":1}".getBytes(StandardCharsets.UTF_8);
        for (WebhookSecret s : new WebhookSecret[] {secret, next}) {
            String id = "msg-" + s.hashCode();
            InboxResult r = inbox.receive(
                    Map.of(
                            "webhook-id", id,
                            "webhook-timestamp", Long.toString(now),
                            "webhook-signature", WebhookSigner.of(s).sign(id, now, body)),
                    body,
                    m -> jdbc.update("UPDATE account SET credits = credits + 1"));
            assertThat(r.outcome()).isEqualTo(InboxResult.Outcome.APPLIED);
        }
        InboxResult stale = inbox.receive(
                Map.of(
                        "webhook-id", "old",
                        "webhook-timestamp", Long.toString(now - 3600),
                        "webhook-signature", WebhookSigner.of(secret).sign("old", now - 3600, body)),
                body,
                m -> jdbc.update("UPDATE account SET credits = credits + 100"));
        assertThat(stale.outcome()).isEqualTo(InboxResult.Outcome.REJECTED);
        assertThat(stale.httpStatus()).isEqualTo(401);
        assertThat(stale.reason()).contains("TIMESTAMP_TOO_OLD");
        InboxResult unsigned = inbox.receive(Map.of("webhook-id", "x"), body, m -> {});
        assertThat(unsigned.outcome()).isEqualTo(InboxResult.Outcome.REJECTED);
        assertThat(jdbc.queryForObject("SELECT credits FROM account", Integer.class))
                .isEqualTo(2);
    }

    @Test
    void aFailingHandlerRollsBackTheRecordSoTheRedeliveryRunsAgain() {
        WebhookInbox inbox = WebhookInbox.builder(receiverDb).secret(secret).build();
        long now = System.currentTimeMillis() / 1000;
        byte[] body = "{}".getBytes(StandardCharsets.UTF_8);
        Map<String, String> headers = Map.of(
                "webhook-id", "m1",
                "webhook-timestamp", Long.toString(now),
                "webhook-signature", WebhookSigner.of(secret).sign("m1", now, body));
        assertThatThrownBy(() -> inbox.receive(headers, body, m -> {
                    jdbc.update("UPDATE account SET credits = credits + 1");
                    throw new IllegalStateException("downstream unavailable");
                }))
                .hasMessage("downstream unavailable");
        assertThat(jdbc.queryForObject("SELECT credits FROM account", Integer.class))
                .isZero();
        assertThat(inbox.receive(headers, body, m -> jdbc.update("UPDATE account SET credits = credits + 1"))
                        .outcome())
                .isEqualTo(InboxResult.Outcome.APPLIED);
        assertThat(inbox.receive(headers, body, m -> jdbc.update("UPDATE account SET credits = credits + 1"))
                        .outcome())
                .isEqualTo(InboxResult.Outcome.DUPLICATE);
        assertThat(jdbc.queryForObject("SELECT credits FROM account", Integer.class))
                .isEqualTo(1);
        assertThatThrownBy(() -> WebhookInbox.builder(receiverDb).table("inbox; DROP TABLE x"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not a plain SQL identifier");
    }

    /** End to end: the receiver applies, then its answer is lost twice (503); the retries are no-ops. */
    @Test
    void retriesAfterLostAnswersAreNoOps() throws Exception {
        WebhookInbox inbox = WebhookInbox.builder(receiverDb).secret(secret).build();
        try (Harness h = new Harness();
                Receiver receiver = new Receiver()) {
            AtomicInteger calls = new AtomicInteger();
            Receiver.Responder apply = endpoint(inbox);
            receiver.responder = (exchange, body) -> {
                Receiver.Reply reply = apply.reply(exchange, body);
                return calls.incrementAndGet() <= 2 ? Receiver.Reply.status(503) : reply;
            };
            Harness.Node node = h.node();
            node.http()
                    .endpoints()
                    .register(Endpoint.builder("credits", receiver.url("/credits"))
                            .secret(secret)
                            .retryPolicy(RetryPolicy.custom()
                                    .base(Duration.ofMillis(50))
                                    .cap(Duration.ofMillis(100))
                                    .maxAttempts(5)
                                    .build())
                            .build());
            h.tx(c -> node.http().webhooks().send(c, "credits", Map.of("credit", 1), "grant-7"));
            node.postbox().start();
            await().atMost(Duration.ofSeconds(30)).until(() -> calls.get() >= 3);
            await().atMost(Duration.ofSeconds(10)).until(() -> h.count("SELECT count(*) FROM outbox_job") == 0);
            assertThat(receiver.snapshot())
                    .extracting(Receiver.Arrival::webhookId)
                    .containsOnly("credits:grant-7");
            assertThat(jdbc.queryForObject("SELECT credits FROM account", Integer.class))
                    .isEqualTo(1);
            assertThat(h.count("SELECT count(*) FROM outbox_attempt WHERE status_code = 503"))
                    .isEqualTo(2);
        }
    }
}
