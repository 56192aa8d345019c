package dev.postbox.spring.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.postbox.http.inbox.InboxResult;
import dev.postbox.http.inbox.WebhookInbox;
import dev.postbox.http.signing.WebhookSecret;
import dev.postbox.http.signing.WebhookSigner;
import dev.postbox.testing.TestDatabase;
import jakarta.servlet.ServletInputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.http.ResponseEntity;
import org.springframework.mock.web.DelegatingServletInputStream;
import org.springframework.mock.web.MockHttpServletRequest;

/** Issue 12 item 8 through the MVC glue: a body over the cap is a 413 unread; a 401 names no clock or secret count. */
class WebhookInboxMvcTest {

    private final DataSource dataSource = TestDatabase.create();

    @AfterEach
    void dropDatabase() {
        TestDatabase.drop(dataSource);
    }

    @Test
    void oversizedBodiesAre413AndRejectionsRevealNothing() throws Exception {
        WebhookInboxMvc mvc = new WebhookInboxMvc(WebhookInbox.builder(dataSource)
                .secret(WebhookSecret.generate())
                .secret(WebhookSecret.generate())
                .maxBodyBytes(64)
                .build());
        AtomicInteger applied = new AtomicInteger();
        long now = Instant.now().getEpochSecond();

        MockHttpServletRequest big = new MockHttpServletRequest("POST", "/hooks");
        big.setContent(new byte[1000]);
        big.addHeader("webhook-id", "m1");
        ResponseEntity<String> tooLarge = mvc.receive(big, m -> applied.incrementAndGet());
        assertThat(tooLarge.getStatusCode().value()).isEqualTo(413);
        assertThat(tooLarge.getBody()).startsWith("TOO_LARGE");

        MockHttpServletRequest forged = new MockHttpServletRequest("POST", "/hooks");
        forged.setContent("{}".getBytes());
        forged.addHeader("webhook-id", "m2");
        forged.addHeader("webhook-timestamp", Long.toString(now - 3600));
        forged.addHeader("webhook-signature", "v1,AAAA");
        ResponseEntity<String> rejected = mvc.receive(forged, m -> applied.incrementAndGet());
        assertThat(rejected.getStatusCode().value()).isEqualTo(401);
        assertThat(rejected.getBody())
                .startsWith("TIMESTAMP_TOO_OLD")
                .doesNotContain(Instant.now().toString().substring(0, 10))
                .doesNotContain("2 secret");
        assertThat(applied).hasValue(0);
    }

    @Test
    void theResultReadsTheBodyFromTheRequestCappedAndAppliesASignedOne() throws Exception {
        WebhookSecret secret = WebhookSecret.generate();
        WebhookInboxMvc mvc = new WebhookInboxMvc(
                WebhookInbox.builder(dataSource).secret(secret).maxBodyBytes(64).build());
        AtomicInteger applied = new AtomicInteger();

        byte[] body = "{\"order\":1}".getBytes(StandardCharsets.UTF_8);
        long now = Instant.now().getEpochSecond();
        MockHttpServletRequest signed = new MockHttpServletRequest("POST", "/hooks");
        signed.setContent(body);
        signed.addHeader("webhook-id", "m1");
        signed.addHeader("webhook-timestamp", Long.toString(now));
        signed.addHeader("webhook-signature", WebhookSigner.of(secret).sign("m1", now, body));
        assertThat(mvc.result(signed, m -> applied.incrementAndGet()).outcome()).isEqualTo(InboxResult.Outcome.APPLIED);
        assertThat(applied).hasValue(1);

        // No Content-Length (chunked): the cap applies while reading.
        AtomicLong read = new AtomicLong();
        MockHttpServletRequest chunked = new MockHttpServletRequest("POST", "/hooks") {
            @Override
            public ServletInputStream getInputStream() {
                InputStream endless = new InputStream() {
                    @Override
                    public int read() {
                        read.incrementAndGet();
                        return 'x';
                    }
                };
                return new DelegatingServletInputStream(endless);
            }

            @Override
            public long getContentLengthLong() {
                return -1;
            }
        };
        assertThat(mvc.result(chunked, m -> applied.incrementAndGet()).outcome())
                .isEqualTo(InboxResult.Outcome.TOO_LARGE);
        assertThat(read).hasValue(65);

        MockHttpServletRequest declared = new MockHttpServletRequest("POST", "/hooks");
        declared.setContent(new byte[65]);
        assertThat(mvc.result(declared, m -> applied.incrementAndGet()).outcome())
                .isEqualTo(InboxResult.Outcome.TOO_LARGE);
        assertThat(applied).hasValue(1);
    }
}
