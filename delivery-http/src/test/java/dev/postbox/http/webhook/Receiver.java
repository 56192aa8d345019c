package dev.postbox.http.webhook;

import com.sun.net.httpserver.Headers;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.postbox.http.DeliveryRequest;
import dev.postbox.http.HttpDelivery;
import dev.postbox.http.signing.WebhookSecret;
import dev.postbox.http.signing.WebhookSigner;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Function;

/** A webhook receiver on 127.0.0.1 that records every arrival and answers as told. */
final class Receiver implements AutoCloseable {

    /** A request as it arrived (before it was answered) and the status it was answered with. */
    record Arrival(String path, long nanos, String webhookId, byte[] body, Headers headers, int status) {}

    record Reply(int status, Map<String, String> headers, String body) {
        static Reply ok() {
            return new Reply(200, Map.of(), "");
        }

        static Reply status(int status) {
            return new Reply(status, Map.of(), "");
        }
    }

    /** Decides the reply; runs on the server's threads. */
    interface Responder {
        Reply reply(HttpExchange exchange, byte[] body) throws Exception;
    }

    private final HttpServer server;
    private final ExecutorService executor = Executors.newFixedThreadPool(64);
    final ConcurrentLinkedQueue<Arrival> arrivals = new ConcurrentLinkedQueue<>();
    volatile Responder responder = (exchange, body) -> Reply.ok();

    Receiver() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 0), 512);
        server.createContext("/", this::handle);
        server.setExecutor(executor);
        server.start();
    }

    void respond(Function<String, Reply> byPath) {
        responder = (exchange, body) -> byPath.apply(exchange.getRequestURI().getPath());
    }

    private void handle(HttpExchange exchange) throws IOException {
        long now = System.nanoTime();
        byte[] body = exchange.getRequestBody().readAllBytes();
        Reply reply;
        try {
            reply = responder.reply(exchange, body);
        } catch (Exception e) {
            reply = new Reply(500, Map.of(), String.valueOf(e));
        }
        arrivals.add(new Arrival(
                exchange.getRequestURI().getPath(),
                now,
                exchange.getRequestHeaders().getFirst("webhook-id"),
                body,
                exchange.getRequestHeaders(),
                reply.status()));
        reply.headers().forEach((k, v) -> exchange.getResponseHeaders().add(k, v));
        byte[] out = reply.body().getBytes();
        exchange.sendResponseHeaders(reply.status(), out.length == 0 ? -1 : out.length);
        if (out.length > 0) {
            try (OutputStream os = exchange.getResponseBody()) {
                os.write(out);
            }
        }
        exchange.close();
    }

    String url(String path) {
        return "http://127.0.0.1:" + server.getAddress().getPort() + path;
    }

    int count() {
        return arrivals.size();
    }

    List<Arrival> snapshot() {
        return new ArrayList<>(arrivals);
    }

    /** Most arrivals within any window of {@code windowNanos} (sliding over arrival times). */
    static int maxInWindow(List<Long> sortedNanos, long windowNanos) {
        int max = 0;
        int j = 0;
        for (int i = 0; i < sortedNanos.size(); i++) {
            while (sortedNanos.get(i) - sortedNanos.get(j) >= windowNanos) {
                j++;
            }
            max = Math.max(max, i - j + 1);
        }
        return max;
    }

    /**
     * Sends 20 rounds of {@code concurrency} parallel requests to {@code /warm-up} through {@code
     * delivery}, outside a measurement: a cold first call (connections, class loading) would hold the
     * first sends back and bunch them with later ones here. The arrivals stay recorded.
     */
    void warmUp(HttpDelivery delivery, int concurrency) throws Exception {
        ExecutorService threads = Executors.newFixedThreadPool(concurrency);
        try {
            for (int round = 0; round < 20; round++) {
                List<Future<?>> calls = new ArrayList<>();
                for (int i = 0; i < concurrency; i++) {
                    calls.add(threads.submit(() -> delivery.deliver(DeliveryRequest.builder()
                            .url(url("/warm-up"))
                            .messageId("warm-up")
                            .body("{}")
                            .signer(WebhookSigner.of(WebhookSecret.generate()))
                            .build())));
                }
                for (Future<?> call : calls) {
                    call.get();
                }
            }
        } finally {
            threads.shutdown();
        }
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }
}
