package dev.postbox.chaos;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.postbox.http.VerifiedWebhook;
import dev.postbox.http.WebhookSecret;
import dev.postbox.http.WebhookVerificationException;
import dev.postbox.http.WebhookVerifier;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.sql.DataSource;

/**
 * The webhook receiver: never killed, listens on 127.0.0.1 only, one path per endpoint ({@code
 * /hook/<endpoint>}). It verifies each request's Standard Webhooks signature with {@link
 * WebhookVerifier} (the endpoint's secret), applies the effect under a unique constraint on the
 * {@code webhook-id} (when deduplication is on), logs every request with its arrival time, and
 * injects faults from the run's seed: 5xx before applying, a timeout after applying, 429 with {@code
 * Retry-After} (not on the rate-limited endpoint, whose rate the checker measures), and a dropped
 * connection (before or after applying).
 */
final class Receiver implements AutoCloseable {

    private final DataSource ds;
    private final ChaosConfig config;
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

    Receiver(DataSource ds, ChaosConfig config, long seed, Map<String, WebhookSecret> secrets, Set<String> no429)
            throws IOException {
        this.ds = ds;
        this.config = config;
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

    private static final Pattern EVENT = Pattern.compile("\"event\"\\s*:\\s*\"([^\"]+)\"");
    private static final Pattern SEQ = Pattern.compile("\"seq\"\\s*:\\s*(\\d+)");
    private static final Pattern ORDERING_KEY = Pattern.compile("\"ok\"\\s*:\\s*\"([^\"]+)\"");

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
            if (verifier == null) {
                log(null, null, endpoint, "unknown-endpoint", false, arrival);
                exchange.sendResponseHeaders(404, -1);
                return;
            }
            VerifiedWebhook verified;
            try {
                verified = verifier.verify(exchange.getRequestHeaders()::getFirst, body);
            } catch (WebhookVerificationException e) {
                signatureRejections.incrementAndGet();
                log(
                        exchange.getRequestHeaders().getFirst(WebhookVerifier.ID_HEADER),
                        null,
                        endpoint,
                        "bad-signature",
                        false,
                        arrival);
                exchange.sendResponseHeaders(401, -1);
                return;
            }
            String id = verified.messageId();
            String text = new String(body, StandardCharsets.UTF_8);
            String event = group(EVENT, text);
            // A direct send is known by its webhook-id ("<endpoint>:<intent key>"); a fan-out delivery
            // by its event and endpoint (its webhook-id is "<event job id>:<endpoint>").
            String intentKey = event != null ? event : id;
            String effectKey = event != null ? event + "@" + endpoint : id;
            String orderingKey = group(ORDERING_KEY, text);
            String seqText = group(SEQ, text);
            long seq = seqText == null ? 0 : Long.parseLong(seqText);
            Effect effect = new Effect(id, effectKey, intentKey, endpoint, orderingKey, seq);
            double r = roll();
            double p = 0;
            if (r < (p += config.receiver5xx())) {
                faults5xx.incrementAndGet();
                log(id, intentKey, endpoint, "503", false, arrival);
                exchange.sendResponseHeaders(503, -1);
            } else if (r < (p += config.receiver429()) && !no429.contains(endpoint)) {
                faults429.incrementAndGet();
                log(id, intentKey, endpoint, "429", false, arrival);
                exchange.getResponseHeaders().set("Retry-After", "1");
                exchange.sendResponseHeaders(429, -1);
            } else if (r < (p += config.receiverReset())) {
                faultsReset.incrementAndGet();
                boolean applyFirst = roll() < 0.5;
                boolean applied = applyFirst && apply(effect);
                log(id, intentKey, endpoint, applyFirst ? "reset-after-apply" : "reset", applied, arrival);
                // Close without a response: the client sees the connection end mid-request.
            } else if (r < (p += config.receiverTimeoutAfterApply())) {
                faultsTimeout.incrementAndGet();
                boolean applied = apply(effect);
                log(id, intentKey, endpoint, "timeout-after-apply", applied, arrival);
                sleep(WorkerMain.HTTP_TIMEOUT.toMillis() + 500);
                exchange.sendResponseHeaders(200, -1);
            } else {
                boolean applied = apply(effect);
                log(id, intentKey, endpoint, "ok", applied, arrival);
                exchange.sendResponseHeaders(applied ? 204 : 200, -1);
            }
        } catch (SQLException | RuntimeException e) {
            exchange.sendResponseHeaders(500, -1);
        } finally {
            exchange.close();
        }
    }

    private record Effect(
            String webhookId, String effectKey, String intentKey, String endpoint, String orderingKey, long seq) {}

    private static String group(Pattern pattern, String text) {
        Matcher m = pattern.matcher(text);
        return m.find() ? m.group(1) : null;
    }

    /** Applies the effect; {@code false} when this webhook-id's effect was already applied (dedup). */
    private boolean apply(Effect e) throws SQLException {
        String sql = "INSERT INTO chaos_receiver_effect (idem_key, effect_key, intent_key, endpoint, ordering_key, seq)"
                + " VALUES (?, ?, ?, ?, ?, ?)"
                + (config.receiverDedup() ? " ON CONFLICT (idem_key) DO NOTHING" : "");
        try (Connection c = ds.getConnection();
                PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setString(1, e.webhookId());
            ps.setString(2, e.effectKey());
            ps.setString(3, e.intentKey());
            ps.setString(4, e.endpoint());
            ps.setString(5, e.orderingKey());
            ps.setLong(6, e.seq());
            return ps.executeUpdate() == 1;
        }
    }

    private void log(String id, String intentKey, String endpoint, String fault, boolean applied, long arrival)
            throws SQLException {
        try (Connection c = ds.getConnection();
                PreparedStatement ps = c.prepareStatement("INSERT INTO chaos_delivery"
                        + " (idem_key, intent_key, endpoint, fault, applied, arrival_ms) VALUES (?, ?, ?, ?, ?, ?)")) {
            ps.setString(1, id);
            ps.setString(2, intentKey);
            ps.setString(3, endpoint);
            ps.setString(4, fault);
            ps.setBoolean(5, applied);
            ps.setLong(6, arrival);
            ps.executeUpdate();
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
