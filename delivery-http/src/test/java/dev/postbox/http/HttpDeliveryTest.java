package dev.postbox.http;

import static dev.postbox.http.ssrf.SsrfGuardTest.fakeDns;
import static dev.postbox.http.ssrf.SsrfGuardTest.ip;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.postbox.http.internal.IoFailures;
import dev.postbox.http.signing.VerifiedWebhook;
import dev.postbox.http.signing.WebhookSecret;
import dev.postbox.http.signing.WebhookSigner;
import dev.postbox.http.signing.WebhookVerifier;
import dev.postbox.http.ssrf.AddressCategory;
import dev.postbox.http.ssrf.SsrfGuard;
import dev.postbox.http.ssrf.SsrfPolicy;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.zip.GZIPOutputStream;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import mockwebserver3.SocketEffect;
import okhttp3.Dns;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okio.Buffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Real sockets on 127.0.0.1 only. */
class HttpDeliveryTest {

    private static final Instant NOW = Instant.parse("2026-03-01T12:00:00Z");
    private static final String BODY = "{\"event\":\"invoice.paid\",\"amount\":4711}";
    private static final SsrfPolicy LOOPBACK_ALLOWED =
            SsrfPolicy.custom().allow("127.0.0.1/32").build();

    private final MutableClock clock = new MutableClock(NOW);
    private final WebhookSecret secret = WebhookSecret.generate();
    private final MockWebServer server = new MockWebServer();
    private HttpDelivery delivery;

    @BeforeEach
    void startServer() throws IOException {
        server.start(InetAddress.getByAddress(new byte[] {127, 0, 0, 1}), 0);
        delivery = deliveryWith(LOOPBACK_ALLOWED, Dns.SYSTEM);
    }

    @AfterEach
    void stop() {
        delivery.close();
        server.close();
    }

    private HttpDelivery deliveryWith(SsrfPolicy policy, Dns dns) {
        return HttpDelivery.builder()
                .ssrfPolicy(policy)
                .dns(dns)
                .clock(clock)
                .maxResponseBodyBytes(1024)
                .defaultTimeouts(
                        new EndpointTimeouts(Duration.ofSeconds(2), Duration.ofSeconds(2), Duration.ofSeconds(5)))
                .build();
    }

    private String url(String host) {
        return "http://" + host + ":" + server.getPort() + "/hook";
    }

    private DeliveryRequest.Builder request(String url) {
        return DeliveryRequest.builder()
                .url(url)
                .messageId("job_4711")
                .body(BODY)
                .signer(WebhookSigner.of(secret));
    }

    private DeliveryRequest request() {
        return request(url("127.0.0.1")).build();
    }

    @Test
    void postsSignedJsonWithTheStandardHeaders() throws InterruptedException {
        server.enqueue(new MockResponse.Builder().code(200).body("ok").build());

        AttemptResult result = delivery.deliver(request(url("127.0.0.1"))
                .traceparent("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")
                .tracestate("congo=t61rcWkgMzE")
                .header("X-Tenant", "acme")
                .build());

        assertThat(result.outcome()).isEqualTo(DeliveryOutcome.DONE);
        assertThat(result.cause()).isEqualTo(FailureCause.NONE);
        assertThat(result.statusCode()).isEqualTo(200);
        assertThat(result.responseBody()).isEqualTo("ok");
        assertThat(result.remoteAddress()).isEqualTo("127.0.0.1");
        assertThat(result.error()).isNull();
        assertThat(result.webhookTimestamp()).isEqualTo(NOW.getEpochSecond());

        RecordedRequest recorded = server.takeRequest(5, TimeUnit.SECONDS);
        assertThat(recorded.getMethod()).isEqualTo("POST");
        assertThat(recorded.getBody().utf8()).isEqualTo(BODY);
        assertThat(recorded.getHeaders().get("Content-Type")).isEqualTo("application/json");
        assertThat(recorded.getHeaders().get("Idempotency-Key")).isEqualTo("job_4711");
        assertThat(recorded.getHeaders().get("webhook-id")).isEqualTo("job_4711");
        assertThat(recorded.getHeaders().get("webhook-timestamp")).isEqualTo(Long.toString(NOW.getEpochSecond()));
        assertThat(recorded.getHeaders().get("traceparent"))
                .isEqualTo("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01");
        assertThat(recorded.getHeaders().get("tracestate")).isEqualTo("congo=t61rcWkgMzE");
        assertThat(recorded.getHeaders().get("X-Tenant")).isEqualTo("acme");
        assertThat(recorded.getHeaders().get("User-Agent")).matches("Postbox/\\S+");

        // The receiving side accepts what the sending side signed.
        WebhookVerifier verifier =
                WebhookVerifier.builder().secret(secret).clock(clock).build();
        VerifiedWebhook verified =
                verifier.verify(recorded.getHeaders()::get, recorded.getBody().toByteArray());
        assertThat(verified.messageId()).isEqualTo("job_4711");
    }

    @Test
    void keepsTheIdAcrossAttemptsAndRefreshesTheTimestamp() throws InterruptedException {
        server.enqueue(new MockResponse.Builder().code(503).build());
        server.enqueue(new MockResponse.Builder().code(200).build());

        AttemptResult first = delivery.deliver(request());
        clock.advance(Duration.ofSeconds(90));
        AttemptResult second = delivery.deliver(request());

        RecordedRequest one = server.takeRequest(5, TimeUnit.SECONDS);
        RecordedRequest two = server.takeRequest(5, TimeUnit.SECONDS);
        assertThat(first.outcome()).isEqualTo(DeliveryOutcome.RETRY);
        assertThat(second.outcome()).isEqualTo(DeliveryOutcome.DONE);
        assertThat(two.getHeaders().get("webhook-id"))
                .isEqualTo(one.getHeaders().get("webhook-id"));
        assertThat(two.getHeaders().get("Idempotency-Key"))
                .isEqualTo(one.getHeaders().get("Idempotency-Key"));
        assertThat(Long.parseLong(two.getHeaders().get("webhook-timestamp"))
                        - Long.parseLong(one.getHeaders().get("webhook-timestamp")))
                .isEqualTo(90);
        assertThat(two.getHeaders().get("webhook-signature"))
                .isNotEqualTo(one.getHeaders().get("webhook-signature"));
    }

    @Test
    void signsWithEveryActiveSecretDuringRotation() throws InterruptedException {
        WebhookSecret next = WebhookSecret.generate();
        server.enqueue(new MockResponse.Builder().code(204).build());

        delivery.deliver(
                request(url("127.0.0.1")).signer(WebhookSigner.of(secret, next)).build());

        RecordedRequest recorded = server.takeRequest(5, TimeUnit.SECONDS);
        assertThat(recorded.getHeaders().get("webhook-signature").split(" ")).hasSize(2);
        WebhookVerifier onlyNew =
                WebhookVerifier.builder().secret(next).clock(clock).build();
        assertThat(onlyNew.verify(recorded.getHeaders()::get, recorded.getBody().toByteArray()))
                .isNotNull();
    }

    @ParameterizedTest(name = "HTTP {0} -> {1}")
    @CsvSource({
        "200, DONE, NONE",
        "201, DONE, NONE",
        "204, DONE, NONE",
        "301, RETRY, REDIRECT",
        "302, RETRY, REDIRECT",
        "307, RETRY, REDIRECT",
        "400, DEAD, HTTP_STATUS",
        "404, DEAD, HTTP_STATUS",
        "408, RETRY, HTTP_STATUS",
        "410, DISABLE_ENDPOINT, HTTP_STATUS",
        "422, DEAD, HTTP_STATUS",
        "425, RETRY, HTTP_STATUS",
        "429, RETRY, HTTP_STATUS",
        "500, RETRY, HTTP_STATUS",
        "502, RETRY, HTTP_STATUS",
        "503, RETRY, HTTP_STATUS"
    })
    void classifiesEveryStatusClass(int status, DeliveryOutcome outcome, FailureCause cause) {
        server.enqueue(new MockResponse.Builder().code(status).build());

        AttemptResult result = delivery.deliver(request());

        assertThat(result.statusCode()).isEqualTo(status);
        assertThat(result.outcome()).isEqualTo(outcome);
        assertThat(result.cause()).isEqualTo(cause);
        assertThat(result.error() == null).isEqualTo(outcome == DeliveryOutcome.DONE);
    }

    @Test
    void neverFollowsARedirectAndKeepsItsLocation() {
        server.enqueue(new MockResponse.Builder()
                .code(302)
                .setHeader("Location", url("127.0.0.1").replace("/hook", "/elsewhere"))
                .build());
        server.enqueue(new MockResponse.Builder().code(200).build());

        AttemptResult result = delivery.deliver(request());

        assertThat(result.outcome()).isEqualTo(DeliveryOutcome.RETRY);
        assertThat(result.cause()).isEqualTo(FailureCause.REDIRECT);
        assertThat(result.error()).contains("redirect (not followed)");
        assertThat(result.responseHeaders())
                .containsEntry("location", url("127.0.0.1").replace("/hook", "/elsewhere"));
        assertThat(server.getRequestCount()).isEqualTo(1);
    }

    @Test
    void honoursRetryAfterOn429And503Only() {
        server.enqueue(new MockResponse.Builder()
                .code(429)
                .setHeader("Retry-After", "30")
                .build());
        server.enqueue(new MockResponse.Builder()
                .code(503)
                .setHeader("Retry-After", "Sun, 01 Mar 2026 12:02:00 GMT")
                .build());
        server.enqueue(new MockResponse.Builder()
                .code(500)
                .setHeader("Retry-After", "30")
                .build());
        server.enqueue(new MockResponse.Builder()
                .code(429)
                .setHeader("Retry-After", "tomorrow")
                .build());

        assertThat(delivery.deliver(request()).retryAfter()).isEqualTo(Duration.ofSeconds(30));
        assertThat(delivery.deliver(request()).retryAfter()).isEqualTo(Duration.ofMinutes(2));
        assertThat(delivery.deliver(request()).retryAfter()).isNull();
        assertThat(delivery.deliver(request()).retryAfter()).isNull();
    }

    @Test
    void aStalledResponsePastTheReadTimeoutIsRetried() {
        server.enqueue(new MockResponse.Builder()
                .onResponseStart(SocketEffect.Stall.INSTANCE)
                .build());
        EndpointTimeouts shortRead =
                new EndpointTimeouts(Duration.ofSeconds(2), Duration.ofMillis(200), Duration.ofSeconds(30));

        AttemptResult result =
                delivery.deliver(request(url("127.0.0.1")).timeouts(shortRead).build());

        assertThat(result.outcome()).isEqualTo(DeliveryOutcome.RETRY);
        assertThat(result.cause()).isEqualTo(FailureCause.TIMEOUT);
        assertThat(result.statusCode()).isNull();
        assertThat(result.error()).startsWith("SocketTimeoutException");
        assertThat(result.duration()).isLessThan(Duration.ofSeconds(10));
    }

    @Test
    void aSlowResponsePastTheCallTimeoutIsRetried() {
        server.enqueue(
                new MockResponse.Builder().headersDelay(20, TimeUnit.SECONDS).build());
        EndpointTimeouts shortCall =
                new EndpointTimeouts(Duration.ofSeconds(2), Duration.ofSeconds(30), Duration.ofMillis(300));

        AttemptResult result =
                delivery.deliver(request(url("127.0.0.1")).timeouts(shortCall).build());

        assertThat(result.outcome()).isEqualTo(DeliveryOutcome.RETRY);
        assertThat(result.cause()).isEqualTo(FailureCause.TIMEOUT);
        assertThat(result.error()).isEqualTo("InterruptedIOException: timeout");
        assertThat(result.duration()).isLessThan(Duration.ofSeconds(10));
    }

    @Test
    void aRequestWhoseSendDeadlinePassedBeforeItsConnectionWasReadyIsNotSent() {
        server.enqueue(new MockResponse.Builder().code(200).build());
        long deadline = System.nanoTime() + Duration.ofMillis(50).toNanos();
        // A resolver that answers only once the deadline has passed: a slow connection set-up.
        Dns slow = host -> {
            while (System.nanoTime() - deadline <= 0) {
                java.util.concurrent.locks.LockSupport.parkNanos(
                        Duration.ofMillis(5).toNanos());
            }
            return List.of(ip("127.0.0.1"));
        };
        try (HttpDelivery slowDelivery = deliveryWith(LOOPBACK_ALLOWED, slow)) {
            AttemptResult result = slowDelivery.deliver(
                    request(url("hooks.example")).sendDeadline(deadline).build());

            assertThat(result.outcome()).isEqualTo(DeliveryOutcome.RETRY);
            assertThat(result.cause()).isEqualTo(FailureCause.NOT_SENT);
            assertThat(result.webhookTimestamp()).as("nothing was sent").isEqualTo(-1);
            assertThat(result.error()).contains("send deadline passed");
        }
        assertThat(server.getRequestCount())
                .as("requests that reached the endpoint")
                .isZero();
    }

    @Test
    void aRequestWithinItsSendDeadlineIsSent() {
        server.enqueue(new MockResponse.Builder().code(200).build());

        AttemptResult result = delivery.deliver(request(url("127.0.0.1"))
                .sendDeadline(System.nanoTime() + Duration.ofSeconds(30).toNanos())
                .build());

        assertThat(result.outcome()).isEqualTo(DeliveryOutcome.DONE);
        assertThat(server.getRequestCount()).isEqualTo(1);
    }

    @Test
    void aConnectionClosedBeforeTheResponseIsRetried() {
        server.enqueue(new MockResponse.Builder()
                .onResponseStart(new SocketEffect.CloseSocket(true, false, false))
                .build());

        AttemptResult result = delivery.deliver(request());

        assertThat(result.outcome()).isEqualTo(DeliveryOutcome.RETRY);
        assertThat(result.cause()).isEqualTo(FailureCause.CONNECTION);
        assertThat(result.statusCode()).isNull();
        assertThat(result.remoteAddress()).isEqualTo("127.0.0.1");
        assertThat(result.error()).contains("unexpected end of stream");
    }

    @Test
    void aConnectionResetByThePeerIsRetried() throws Exception {
        try (ServerSocket resetting = new ServerSocket(0, 1, ip("127.0.0.1"))) {
            Thread acceptor = new Thread(() -> {
                try (Socket accepted = resetting.accept()) {
                    accepted.setSoLinger(true, 0); // close with RST instead of FIN
                } catch (IOException ignored) {
                    // the test asserts on the client side
                }
            });
            acceptor.start();

            AttemptResult result = delivery.deliver(request("http://127.0.0.1:" + resetting.getLocalPort() + "/hook")
                    .build());

            acceptor.join(5_000);
            assertThat(result.outcome()).isEqualTo(DeliveryOutcome.RETRY);
            assertThat(result.cause()).isEqualTo(FailureCause.CONNECTION);
            assertThat(result.statusCode()).isNull();
        }
    }

    @Test
    void aRefusedConnectionIsRetried() throws IOException {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0, 1, ip("127.0.0.1"))) {
            closedPort = socket.getLocalPort();
        }

        AttemptResult result = delivery.deliver(
                request("http://127.0.0.1:" + closedPort + "/hook").build());

        assertThat(result.outcome()).isEqualTo(DeliveryOutcome.RETRY);
        assertThat(result.cause()).isEqualTo(FailureCause.CONNECTION);
        assertThat(result.remoteAddress()).isEqualTo("127.0.0.1");
    }

    @Test
    void readsGzipBodiesTransparently() throws IOException {
        server.enqueue(new MockResponse.Builder()
                .setHeader("Content-Encoding", "gzip")
                .body(gzip("{\"accepted\":true}".getBytes(StandardCharsets.UTF_8)))
                .build());

        AttemptResult result = delivery.deliver(request());

        assertThat(result.responseBody()).isEqualTo("{\"accepted\":true}");
        assertThat(result.responseBodyTruncated()).isFalse();
    }

    @Test
    void cutsOffAGzipBombAtTheDecompressedCap() throws IOException {
        byte[] fiftyMegabytesOfZeros = new byte[50 * 1024 * 1024];
        Buffer bomb = gzip(fiftyMegabytesOfZeros);
        assertThat(bomb.size()).isLessThan(100 * 1024); // compressed: tiny on the wire
        server.enqueue(new MockResponse.Builder()
                .code(500)
                .setHeader("Content-Encoding", "gzip")
                .body(bomb)
                .build());

        AttemptResult result = delivery.deliver(request());

        assertThat(result.outcome()).isEqualTo(DeliveryOutcome.RETRY);
        assertThat(result.responseBodyTruncated()).isTrue();
        assertThat(result.responseBody()).hasSize(1024).containsOnlyOnce("\0\0\0\0".repeat(256));
    }

    @Test
    void truncatesLargePlainBodiesAtTheCap() {
        server.enqueue(
                new MockResponse.Builder().code(400).body("x".repeat(10_000)).build());

        AttemptResult result = delivery.deliver(request());

        assertThat(result.outcome()).isEqualTo(DeliveryOutcome.DEAD);
        assertThat(result.responseBody()).hasSize(1024);
        assertThat(result.responseBodyTruncated()).isTrue();
    }

    @Test
    void refusesALiteralForbiddenAddressWithoutConnecting() {
        HttpDelivery guarded = deliveryWith(SsrfPolicy.ofDefaults(), Dns.SYSTEM);

        AttemptResult result = guarded.deliver(request());

        assertThat(result.outcome()).isEqualTo(DeliveryOutcome.DEAD);
        assertThat(result.cause()).isEqualTo(FailureCause.FORBIDDEN_DESTINATION);
        assertThat(result.error()).contains("127.0.0.1 is a loopback address").contains("postbox.http.allow-list");
        assertThat(server.getRequestCount()).isZero();
        guarded.close();
    }

    @Test
    void aUrlWithCredentialsIsNeverSentAndItsFailureShowsNoCredentialOrQuery() {
        String withCredentials = "http://alice:pa55word@127.0.0.1:" + server.getPort() + "/hook?token=t0ken";
        AttemptResult refused = delivery.deliver(request(withCredentials).build());

        assertThat(refused.outcome()).isEqualTo(DeliveryOutcome.DEAD);
        assertThat(refused.cause()).isEqualTo(FailureCause.FORBIDDEN_DESTINATION);
        assertThat(refused.error())
                .contains("carries credentials")
                .doesNotContain("alice")
                .doesNotContain("pa55word")
                .doesNotContain("t0ken");
        assertThat(server.getRequestCount()).isZero();

        Dns resolvesToLoopback = fakeDns(Map.of("hooks.partner.test", List.of(ip("127.0.0.1"))));
        try (HttpDelivery guarded = deliveryWith(SsrfPolicy.ofDefaults(), resolvesToLoopback)) {
            AttemptResult viaDns =
                    guarded.deliver(request("http://hooks.partner.test:" + server.getPort() + "/hook?token=t0ken")
                            .build());
            assertThat(viaDns.cause()).isEqualTo(FailureCause.FORBIDDEN_DESTINATION);
            assertThat(viaDns.error()).doesNotContain("t0ken");
        }
    }

    @Test
    void refusesANameThatResolvesToAForbiddenAddress() {
        Dns resolvesToLoopback = fakeDns(Map.of("hooks.partner.test", List.of(ip("127.0.0.1"))));
        HttpDelivery guarded = deliveryWith(SsrfPolicy.ofDefaults(), resolvesToLoopback);

        AttemptResult result =
                guarded.deliver(request(url("hooks.partner.test")).build());

        assertThat(result.outcome()).isEqualTo(DeliveryOutcome.DEAD);
        assertThat(result.cause()).isEqualTo(FailureCause.FORBIDDEN_DESTINATION);
        assertThat(result.error()).contains("127.0.0.1 is a loopback address");
        assertThat(server.getRequestCount()).isZero();
        guarded.close();
    }

    @Test
    void refusesANameRebindingToAForbiddenAddressOnALaterAttempt() {
        // First answer: the allow-listed 127.0.0.1. Later answers: 127.0.0.2, loopback but not allow-listed.
        AtomicInteger lookups = new AtomicInteger();
        Dns rebinding = host -> {
            if (!host.equals("rebind.test")) {
                throw new UnknownHostException(host);
            }
            return List.of(lookups.getAndIncrement() == 0 ? ip("127.0.0.1") : ip("127.0.0.2"));
        };
        HttpDelivery guarded = deliveryWith(LOOPBACK_ALLOWED, rebinding);
        server.enqueue(new MockResponse.Builder()
                .code(200)
                .setHeader("Connection", "close")
                .build());

        AttemptResult first = guarded.deliver(request(url("rebind.test")).build());
        AttemptResult second = guarded.deliver(request(url("rebind.test")).build());

        assertThat(first.outcome()).isEqualTo(DeliveryOutcome.DONE);
        assertThat(second.outcome()).isEqualTo(DeliveryOutcome.DEAD);
        assertThat(second.cause()).isEqualTo(FailureCause.FORBIDDEN_DESTINATION);
        assertThat(second.error()).contains("127.0.0.2 is a loopback address");
        assertThat(lookups).hasValue(2);
        assertThat(server.getRequestCount()).isEqualTo(1);
        guarded.close();
    }

    @Test
    void theConnectTimeCheckRefusesWhatTheResolverLetThrough() {
        // A resolver that bypasses the guarded Dns (as a misconfigured or compromised resolver would)
        // hands OkHttp a forbidden address: only the connect-time check stands between it and the socket.
        SsrfGuard guard = SsrfGuard.of(SsrfPolicy.ofDefaults());
        OkHttpClient client = guard.configure(new OkHttpClient.Builder())
                .dns(fakeDns(Map.of("looks-public.test", List.of(ip("127.0.0.1")))))
                .build();
        Request get = new Request.Builder().url(url("looks-public.test")).build();

        assertThatThrownBy(() -> client.newCall(get).execute())
                .isInstanceOf(IOException.class)
                .satisfies(e -> assertThat(IoFailures.ssrfRefusal(e))
                        .hasValueSatisfying(refusal ->
                                assertThat(refusal.verdict().category()).isEqualTo(AddressCategory.LOOPBACK)));
        assertThat(server.getRequestCount()).isZero();
        client.dispatcher().executorService().shutdown();
    }

    @Test
    void theConnectTimeCheckCoversIpLiteralsWhichOkHttpNeverResolves() {
        SsrfGuard guard = SsrfGuard.of(SsrfPolicy.ofDefaults());
        OkHttpClient client = guard.configure(new OkHttpClient.Builder()).build();
        Request get = new Request.Builder().url(url("127.0.0.1")).build();

        assertThatThrownBy(() -> client.newCall(get).execute())
                .satisfies(e -> assertThat(IoFailures.ssrfRefusal(e)).isPresent());
        assertThat(server.getRequestCount()).isZero();
        client.dispatcher().executorService().shutdown();
    }

    @Test
    void anAllowListedHostNameMayResolveToAnInternalAddress() {
        Dns internal = fakeDns(Map.of("hooks.internal", List.of(ip("127.0.0.1"))));
        HttpDelivery trusting =
                deliveryWith(SsrfPolicy.custom().allow("hooks.internal").build(), internal);
        server.enqueue(new MockResponse.Builder().code(200).build());

        AttemptResult result = trusting.deliver(request(url("hooks.internal")).build());

        assertThat(result.outcome()).isEqualTo(DeliveryOutcome.DONE);
        assertThat(result.remoteAddress()).isEqualTo("127.0.0.1");
        trusting.close();
    }

    @Test
    void anInvalidUrlIsDeadWithoutAnyRequest() {
        AttemptResult result =
                delivery.deliver(request("mailto:ops@example.com").build());

        assertThat(result.outcome()).isEqualTo(DeliveryOutcome.DEAD);
        assertThat(result.cause()).isEqualTo(FailureCause.INVALID_REQUEST);
        assertThat(server.getRequestCount()).isZero();
    }

    @Test
    void requestsValidateTheirFieldsByName() {
        assertThatThrownBy(() -> request(url("127.0.0.1")).header("webhook-signature", "forged"))
                .hasMessageContaining("headers may not override 'webhook-signature'");
        assertThatThrownBy(() -> request(url("127.0.0.1")).header("Idempotency-Key", "other"))
                .hasMessageContaining("may not override 'Idempotency-Key'");
        assertThatThrownBy(() -> request(url("127.0.0.1")).messageId("job.1").build())
                .hasMessageContaining("messageId may not contain '.'");
        assertThatThrownBy(() ->
                        request(url("127.0.0.1")).header("X-Bad", "line\nbreak").build())
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() ->
                        DeliveryRequest.builder().messageId("m").body("{}").build())
                .hasMessage("url may not be null");
        assertThatThrownBy(() -> new EndpointTimeouts(Duration.ZERO, Duration.ofSeconds(1), Duration.ofSeconds(1)))
                .hasMessageStartingWith("connectTimeout must be at least 1 ms, got PT0S");
        assertThatThrownBy(() -> HttpDelivery.builder().maxResponseBodyBytes(0))
                .hasMessage("maxResponseBodyBytes must be positive and at most 1048576, got 0");
        assertThat(request().toString()).doesNotContain("invoice.paid");
    }

    private static Buffer gzip(byte[] content) throws IOException {
        Buffer buffer = new Buffer();
        try (OutputStream out = new GZIPOutputStream(buffer.outputStream())) {
            out.write(content);
        }
        return buffer;
    }
}
