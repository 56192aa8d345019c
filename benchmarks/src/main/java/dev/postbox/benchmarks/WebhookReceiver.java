package dev.postbox.benchmarks;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.postbox.http.signing.WebhookVerifier;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A no-op webhook receiver on 127.0.0.1 (the JDK {@code HttpServer} with a thread pool): reads the
 * body, answers 204, verifies the Standard Webhooks signature of every 100th request.
 */
final class WebhookReceiver implements AutoCloseable {

    final AtomicLong received = new AtomicLong();
    final AtomicLong verified = new AtomicLong();
    final AtomicLong badSignatures = new AtomicLong();
    private final HttpServer server;
    private final ExecutorService executor;
    private final WebhookVerifier verifier;

    WebhookReceiver(int threads, WebhookVerifier verifier) throws IOException {
        this.verifier = verifier;
        this.server = HttpServer.create(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 0), 1024);
        this.executor = Executors.newFixedThreadPool(threads, r -> {
            Thread t = new Thread(r, "receiver");
            t.setDaemon(true);
            return t;
        });
        server.setExecutor(executor);
        server.createContext("/hook", this::handle);
        server.start();
    }

    String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort() + "/hook";
    }

    private void handle(HttpExchange exchange) throws IOException {
        byte[] body;
        try (InputStream in = exchange.getRequestBody()) {
            body = in.readAllBytes();
        }
        long n = received.incrementAndGet();
        if (n % 100 == 0) {
            try {
                verifier.verify(exchange.getRequestHeaders()::getFirst, body);
                verified.incrementAndGet();
            } catch (RuntimeException e) {
                badSignatures.incrementAndGet();
            }
        }
        exchange.sendResponseHeaders(204, -1);
        exchange.close();
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }
}
