package dev.postbox.chaos;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.postbox.http.signing.VerifiedWebhook;
import dev.postbox.http.signing.WebhookSecret;
import dev.postbox.http.signing.WebhookVerificationException;
import dev.postbox.http.signing.WebhookVerifier;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The webhook receiver: never killed, listens on 127.0.0.1 only, one path per endpoint ({@code
 * /hook/<endpoint>}). It verifies each request's Standard Webhooks signature with {@link
 * WebhookVerifier} (the endpoint's secret), applies the effect once per {@code webhook-id} (as a
 * keyed receiver does), records the effect under the payload's own {@code tx} and {@code seq} with
 * the tenant the delivery carried (the {@code <tenant>/} of its {@code webhook-id}), logs
 * every request with its arrival time, and injects faults from the run's seed: 5xx before
 * applying, a timeout after applying, 429 with {@code Retry-After} (not on the rate-limited
 * endpoint, whose rate the checker measures), and a dropped connection (before or after applying).
 */
final class Receiver implements AutoCloseable {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final DataSource ds;
    private final ChaosConfig.ReceiverFaults faults;
    private final SplittableRandom random;
    private final HttpServer server;
    private final Map<String, WebhookVerifier> verifiers = new HashMap<>();
    private final Set<String> no429;
    // Enough threads that requests are not queued behind "timeout after apply" sleeps (a queue would
    // bunch arrivals and distort the rate-limit measurement).
    private final ExecutorService executor = Executors.newFixedThreadPool(64, r -> {
        Thread t = new Thread(r, "chaos-receiver");
        t.setDaemon(true);
        return t;
    });
    final AtomicLong requests = new AtomicLong();
    final AtomicLong faults5xx = new AtomicLong();
    final AtomicLong faultsTimeout = new AtomicLong();
    final AtomicLong faults429 = new AtomicLong();
    final AtomicLong faultsReset = new AtomicLong();
    final AtomicLong signatureRejections = new AtomicLong();

    Receiver(
            DataSource ds,
            ChaosConfig.ReceiverFaults faults,
            long seed,
            Map<String, WebhookSecret> secrets,
            Set<String> no429)
            throws IOException {
        this.ds = ds;
        this.faults = faults;
        this.random = new SplittableRandom(seed);
        this.no429 = Set.copyOf(no429);
        secrets.forEach((name, secret) ->
                verifiers.put(name, WebhookVerifier.builder().secret(secret).build()));
        this.server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 512);
        server.createContext("/hook/", this::handle);
        server.setExecutor(executor);
        server.start();
    }

    URI uri() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    }

    /** The URL of an endpoint's path. */
    String url(String endpoint) {
        return uri() + "/hook/" + endpoint;
    }

    private double roll() {
        synchronized (random) {
            return random.nextDouble();
        }
    }

    /** What one request carries: its webhook-id and the producer's fields from its payload. */
    private record Request(
            String endpoint, String webhookId, Long sentSeconds, Long tx, Long seq, String orderingKey) {}

    private void handle(HttpExchange exchange) throws IOException {
        long arrival = System.currentTimeMillis();
        requests.incrementAndGet();
        byte[] body;
        try (InputStream in = exchange.getRequestBody()) {
            body = in.readAllBytes();
        }
        String path = exchange.getRequestURI().getPath();
        String endpoint = path.substring(path.lastIndexOf('/') + 1);
        try {
            WebhookVerifier verifier = verifiers.get(endpoint);
            String claimedId = exchange.getRequestHeaders().getFirst(WebhookVerifier.ID_HEADER);
            Long sent = seconds(exchange.getRequestHeaders().getFirst(WebhookVerifier.TIMESTAMP_HEADER));
            if (verifier == null) {
                log(new Request(endpoint, claimedId, sent, null, null, null), "unknown-endpoint", false, arrival);
                exchange.sendResponseHeaders(404, -1);
                return;
            }
            VerifiedWebhook verified;
            try {
                verified = verifier.verify(exchange.getRequestHeaders()::getFirst, body);
            } catch (WebhookVerificationException e) {
                signatureRejections.incrementAndGet();
                log(new Request(endpoint, claimedId, sent, null, null, null), "bad-signature", false, arrival);
                exchange.sendResponseHeaders(401, -1);
                return;
            }
            JsonNode payload = JSON.readTree(body);
            Request request = new Request(
                    endpoint,
                    verified.messageId(),
                    sent,
                    number(payload, "tx"),
                    number(payload, "seq"),
                    payload.hasNonNull("ok") ? payload.get("ok").asString() : null);
            respond(exchange, request, arrival);
        } catch (SQLException | RuntimeException e) {
            exchange.sendResponseHeaders(500, -1);
        } finally {
            exchange.close();
        }
    }

    private void respond(HttpExchange exchange, Request request, long arrival) throws IOException, SQLException {
        double r = roll();
        double p = 0;
        if (r < (p += faults.error5xx())) {
            faults5xx.incrementAndGet();
            log(request, "503", false, arrival);
            exchange.sendResponseHeaders(503, -1);
        } else if (r < (p += faults.tooManyRequests()) && !no429.contains(request.endpoint())) {
            faults429.incrementAndGet();
            log(request, "429", false, arrival);
            exchange.getResponseHeaders().set("Retry-After", "1");
            exchange.sendResponseHeaders(429, -1);
        } else if (r < (p += faults.reset())) {
            faultsReset.incrementAndGet();
            boolean applyFirst = roll() < 0.5;
            boolean applied = applyFirst && apply(request);
            log(request, applyFirst ? "reset-after-apply" : "reset", applied, arrival);
            // Close without a response: the client sees the connection end mid-request.
        } else if (r < (p += faults.timeoutAfterApply())) {
            faultsTimeout.incrementAndGet();
            boolean applied = apply(request);
            log(request, "timeout-after-apply", applied, arrival);
            sleep(WorkerMain.HTTP_TIMEOUT.toMillis() + 500);
            exchange.sendResponseHeaders(200, -1);
        } else {
            boolean applied = apply(request);
            log(request, "ok", applied, arrival);
            exchange.sendResponseHeaders(applied ? 204 : 200, -1);
        }
    }

    private static Long seconds(String header) {
        try {
            return header == null ? null : Long.parseLong(header.trim());
        } catch (NumberFormatException e) {
            return null;
        }
    }

    private static Long number(JsonNode payload, String field) {
        JsonNode n = payload.get(field);
        return n != null && n.isIntegralNumber() ? n.asLong() : null;
    }

    /** Applies the effect; {@code false} when this webhook-id's effect was already applied. */
    private boolean apply(Request r) throws SQLException {
        try (Connection c = ds.getConnection();
                PreparedStatement ps = c.prepareStatement(
                        "INSERT INTO chaos_effect (target, tx, seq, ordering_key, webhook_id, tenant)"
                                + " VALUES (?, ?, ?, ?, ?, ?)"
                                + " ON CONFLICT (webhook_id) WHERE webhook_id IS NOT NULL DO NOTHING")) {
            ps.setString(1, r.endpoint());
            setLong(ps, 2, r.tx());
            setLong(ps, 3, r.seq());
            ps.setString(4, r.orderingKey());
            ps.setString(5, r.webhookId());
            ps.setString(6, ChaosTenants.ofDeliveryId(r.webhookId()));
            return ps.executeUpdate() == 1;
        }
    }

    private void log(Request r, String fault, boolean applied, long arrival) throws SQLException {
        try (Connection c = ds.getConnection();
                PreparedStatement ps = c.prepareStatement("INSERT INTO chaos_delivery"
                        + " (endpoint, webhook_id, tx, seq, fault, applied, arrival_ms, sent_s, tenant)"
                        + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
            ps.setString(1, r.endpoint());
            ps.setString(2, r.webhookId());
            setLong(ps, 3, r.tx());
            setLong(ps, 4, r.seq());
            ps.setString(5, fault);
            ps.setBoolean(6, applied);
            ps.setLong(7, arrival);
            setLong(ps, 8, r.sentSeconds());
            ps.setString(9, ChaosTenants.ofDeliveryId(r.webhookId()));
            ps.executeUpdate();
        }
    }

    private static void setLong(PreparedStatement ps, int i, Long v) throws SQLException {
        if (v == null) {
            ps.setNull(i, Types.BIGINT);
        } else {
            ps.setLong(i, v);
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }
}
