package dev.postbox.chaos;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;

/**
 * The webhook receiver: never killed, listens on 127.0.0.1 only. It applies each delivery's effect
 * under a unique constraint on the {@code Idempotency-Key} (when deduplication is on), logs every
 * request, and injects faults from the run's seed: 5xx before applying, a timeout after applying,
 * 429 with {@code Retry-After}, and a dropped connection (before or after applying).
 */
final class Receiver implements AutoCloseable {

    private final DataSource ds;
    private final ChaosConfig config;
    private final SplittableRandom random;
    private final HttpServer server;
    private final ExecutorService executor = Executors.newFixedThreadPool(24, r -> {
        Thread t = new Thread(r, "chaos-receiver");
        t.setDaemon(true);
        return t;
    });
    final AtomicLong requests = new AtomicLong();
    final AtomicLong faults5xx = new AtomicLong();
    final AtomicLong faultsTimeout = new AtomicLong();
    final AtomicLong faults429 = new AtomicLong();
    final AtomicLong faultsReset = new AtomicLong();

    Receiver(DataSource ds, ChaosConfig config, long seed) throws IOException {
        this.ds = ds;
        this.config = config;
        this.random = new SplittableRandom(seed);
        this.server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 256);
        server.createContext("/deliver", this::handle);
        server.setExecutor(executor);
        server.start();
    }

    URI uri() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    }

    private double roll() {
        synchronized (random) {
            return random.nextDouble();
        }
    }

    private void handle(HttpExchange exchange) throws IOException {
        requests.incrementAndGet();
        try (InputStream in = exchange.getRequestBody()) {
            in.readAllBytes();
        }
        String key = exchange.getRequestHeaders().getFirst("Idempotency-Key");
        if (key == null) {
            exchange.sendResponseHeaders(400, -1);
            exchange.close();
            return;
        }
        long jobId = parse(exchange.getRequestHeaders().getFirst("X-Chaos-Job-Id"));
        int attempt = (int) parse(exchange.getRequestHeaders().getFirst("X-Chaos-Attempt"));
        String worker = exchange.getRequestHeaders().getFirst("X-Chaos-Worker");
        String orderingKey = exchange.getRequestHeaders().getFirst("X-Chaos-Ordering-Key");
        long seq = parse(exchange.getRequestHeaders().getFirst("X-Chaos-Seq"));
        double r = roll();
        double p = 0;
        try {
            if (r < (p += config.receiver5xx())) {
                faults5xx.incrementAndGet();
                log(key, jobId, attempt, worker, "503", false);
                exchange.sendResponseHeaders(503, -1);
            } else if (r < (p += config.receiver429())) {
                faults429.incrementAndGet();
                log(key, jobId, attempt, worker, "429", false);
                exchange.getResponseHeaders().set("Retry-After", "1");
                exchange.sendResponseHeaders(429, -1);
            } else if (r < (p += config.receiverReset())) {
                faultsReset.incrementAndGet();
                boolean applyFirst = roll() < 0.5;
                boolean applied = applyFirst && apply(key, jobId, orderingKey, seq);
                log(key, jobId, attempt, worker, applyFirst ? "reset-after-apply" : "reset", applied);
                // Close without a response: the client sees the connection end mid-request.
            } else if (r < (p += config.receiverTimeoutAfterApply())) {
                faultsTimeout.incrementAndGet();
                boolean applied = apply(key, jobId, orderingKey, seq);
                log(key, jobId, attempt, worker, "timeout-after-apply", applied);
                sleep(WorkerMain.HTTP_TIMEOUT.toMillis() + 500);
                exchange.sendResponseHeaders(200, -1);
            } else {
                boolean applied = apply(key, jobId, orderingKey, seq);
                log(key, jobId, attempt, worker, "ok", applied);
                exchange.sendResponseHeaders(applied ? 201 : 200, -1);
            }
        } catch (SQLException | RuntimeException e) {
            exchange.sendResponseHeaders(500, -1);
        } finally {
            exchange.close();
        }
    }

    /** Applies the effect; {@code false} when this key's effect was already applied (dedup). */
    private boolean apply(String key, long jobId, String orderingKey, long seq) throws SQLException {
        String sql = "INSERT INTO chaos_receiver_effect (idem_key, job_id, ordering_key, seq) VALUES (?, ?, ?, ?)"
                + (config.receiverDedup() ? " ON CONFLICT (idem_key) DO NOTHING" : "");
        try (Connection c = ds.getConnection();
                PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setString(1, key);
            ps.setLong(2, jobId);
            ps.setString(3, orderingKey);
            ps.setLong(4, seq);
            return ps.executeUpdate() == 1;
        }
    }

    private void log(String key, long jobId, int attempt, String worker, String fault, boolean applied)
            throws SQLException {
        try (Connection c = ds.getConnection();
                PreparedStatement ps = c.prepareStatement("INSERT INTO chaos_delivery"
                        + " (idem_key, job_id, attempt, worker, fault, applied) VALUES (?, ?, ?, ?, ?, ?)")) {
            ps.setString(1, key);
            ps.setLong(2, jobId);
            ps.setInt(3, attempt);
            ps.setString(4, worker);
            ps.setString(5, fault);
            ps.setBoolean(6, applied);
            ps.executeUpdate();
        }
    }

    private static long parse(String s) {
        try {
            return s == null ? 0 : Long.parseLong(s);
        } catch (NumberFormatException e) {
            return 0;
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
