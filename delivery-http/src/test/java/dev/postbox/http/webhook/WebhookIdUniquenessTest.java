package dev.postbox.http.webhook;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import dev.postbox.http.inbox.WebhookInbox;
import dev.postbox.http.signing.WebhookSecret;
import dev.postbox.testing.TestDatabase;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Issue 12 item 1: generated webhook ids never collide, so a receiver that deduplicates on webhook-id
 * alone never drops a new message as a "duplicate" (which the sender would archive as done).
 */
class WebhookIdUniquenessTest {

    private final WebhookSecret secret = WebhookSecret.generate();
    private HikariDataSource receiverDb;
    private JdbcTemplate jdbc;

    @BeforeEach
    void setUp() {
        receiverDb = TestDatabase.create();
        jdbc = new JdbcTemplate(receiverDb);
        jdbc.execute("CREATE TABLE applied (webhook_id text NOT NULL, body text NOT NULL)");
    }

    @AfterEach
    void tearDown() {
        TestDatabase.drop(receiverDb);
    }

    private Receiver inbox() throws Exception {
        WebhookInbox inbox = WebhookInbox.builder(receiverDb).secret(secret).build();
        Receiver receiver = new Receiver();
        receiver.responder = (exchange, body) -> Receiver.Reply.status(inbox.receive(
                        exchange.getRequestHeaders()::getFirst,
                        body,
                        m -> jdbc.update(
                                "INSERT INTO applied VALUES (?, ?)",
                                m.messageId(),
                                new String(body, StandardCharsets.UTF_8)))
                .httpStatus());
        return receiver;
    }

    private static HttpDeliveryModule start(Harness h, Receiver receiver, WebhookSecret secret) {
        Harness.Node node = h.node();
        node.http()
                .endpoints()
                .register(Endpoint.builder("shop", receiver.url("/in"))
                        .secret(secret)
                        .subscribe("order.created")
                        .build());
        node.postbox().start();
        return node.http();
    }

    private static void drained(Harness h) {
        await().atMost(Duration.ofSeconds(30)).until(() -> h.count("SELECT count(*) FROM outbox_job") == 0);
    }

    private List<String> appliedBodies() {
        return jdbc.queryForList("SELECT body FROM applied ORDER BY body", String.class);
    }

    @Test
    void aRewoundJobIdSequenceDoesNotMakeANewMessageADuplicate() throws Exception {
        try (Harness h = new Harness();
                Receiver receiver = inbox()) {
            HttpDeliveryModule http = start(h, receiver, secret);
            h.tx(c -> http.webhooks().send(c, "shop", Map.of("n", 1), null));
            h.tx(c -> http.webhooks().publish(c, "order.created", Map.of("n", 2)));
            drained(h);
            h.exec("ALTER SEQUENCE outbox_job_id_seq RESTART");
            h.tx(c -> http.webhooks().send(c, "shop", Map.of("n", 3), null));
            h.tx(c -> http.webhooks().publish(c, "order.created", Map.of("n", 4)));
            drained(h);
            assertThat(appliedBodies()).containsExactly("{\"n\": 1}", "{\"n\": 2}", "{\"n\": 3}", "{\"n\": 4}");
            assertThat(receiver.snapshot()).allMatch(a -> a.status() / 100 == 2);
            assertThat(h.count("SELECT count(*) FROM outbox_job_archive WHERE kind = 'postbox.webhook'"))
                    .isEqualTo(4);
        }
    }

    @Test
    void twoInstallationsPostingIntoOneInboxAreBothApplied() throws Exception {
        try (Harness first = new Harness();
                Harness second = new Harness();
                Receiver receiver = inbox()) {
            HttpDeliveryModule a = start(first, receiver, secret);
            HttpDeliveryModule b = start(second, receiver, secret);
            first.tx(c -> a.webhooks().send(c, "shop", Map.of("from", "a"), null));
            second.tx(c -> b.webhooks().send(c, "shop", Map.of("from", "b"), null));
            first.tx(c -> a.webhooks().publish(c, "order.created", Map.of("from", "a-event")));
            second.tx(c -> b.webhooks().publish(c, "order.created", Map.of("from", "b-event")));
            drained(first);
            drained(second);
            assertThat(appliedBodies())
                    .containsExactly(
                            "{\"from\": \"a\"}",
                            "{\"from\": \"a-event\"}",
                            "{\"from\": \"b\"}",
                            "{\"from\": \"b-event\"}");
            assertThat(first.count("SELECT count(*) FROM outbox_installation")).isEqualTo(1);
        }
    }

    @Test
    void callerKeysAreSentAsTheyAre() throws Exception {
        try (Harness h = new Harness();
                Receiver receiver = inbox()) {
            HttpDeliveryModule http = start(h, receiver, secret);
            h.tx(c -> http.webhooks().send(c, "shop", Map.of("n", 1), "order-1"));
            drained(h);
            assertThat(receiver.snapshot())
                    .extracting(Receiver.Arrival::webhookId)
                    .containsExactly("shop:order-1");
        }
    }

    /** Jobs older than the installation id (enqueued before the upgrade to V8) keep the id they may have been sent with. */
    @Test
    void jobsOlderThanTheInstallationIdKeepTheLegacyIds() throws Exception {
        try (Harness h = new Harness();
                Receiver receiver = inbox()) {
            h.exec("UPDATE outbox_installation SET created_at = now() + interval '1 day'");
            HttpDeliveryModule http = start(h, receiver, secret);
            long[] ids = new long[2];
            h.tx(c -> ids[0] =
                    http.webhooks().send(c, "shop", Map.of("n", 1), null).jobId());
            h.tx(c -> ids[1] =
                    http.webhooks().publish(c, "order.created", Map.of("n", 2)).jobId());
            drained(h);
            assertThat(receiver.snapshot())
                    .extracting(Receiver.Arrival::webhookId)
                    .containsExactlyInAnyOrder("postbox-" + ids[0], ids[1] + ":shop");
        }
    }
}
