package dev.postbox.benchmarks;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import com.zaxxer.hikari.HikariDataSource;
import dev.postbox.Job;
import dev.postbox.JobRequest;
import dev.postbox.Postbox;
import dev.postbox.PostboxConfig;
import dev.postbox.PostboxListener;
import dev.postbox.http.AesGcmSecretCipher;
import dev.postbox.http.HttpDelivery;
import dev.postbox.http.signing.WebhookSecret;
import dev.postbox.http.signing.WebhookVerifier;
import dev.postbox.http.ssrf.SsrfPolicy;
import dev.postbox.http.webhook.Endpoint;
import dev.postbox.http.webhook.HttpDeliveryModule;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import okhttp3.ConnectionPool;
import okhttp3.OkHttpClient;
import org.HdrHistogram.Histogram;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Scenario 6: signed, keyed webhook deliveries through the delivery-http module to a no-op receiver
 * on 127.0.0.1 (the JDK {@code HttpServer} with a thread pool, answering 204). All deliveries are
 * enqueued (in transactions of 1,000) before the engine starts; the clock runs from {@code start()}
 * to the commit of the last completion. The receiver counts requests and verifies the Standard
 * Webhooks signature of every 100th one.
 *
 * <p>HTTP calls block a worker thread for a round trip, so the engine runs with more threads than
 * the no-op scenarios: {@code bench.httpConcurrency} (default 64), unless {@code bench.concurrency}
 * is set. The OkHttp connection pool keeps as many idle connections as there are threads
 * ({@code bench.httpPoolIdle}); OkHttp's default keeps 5, with which a measured run was 17 % slower.
 */
final class Http {

    private static final Logger log = LoggerFactory.getLogger(Http.class);
    private static final String ENDPOINT = "bench";

    private Http() {}

    static Map<String, Object> run(Env env, int deliveries) throws Exception {
        int concurrency = Integer.getInteger("bench.concurrency", Integer.getInteger("bench.httpConcurrency", 64));
        int poolIdle = Integer.getInteger("bench.httpPoolIdle", concurrency);
        int receiverThreads = Integer.getInteger("bench.httpReceiverThreads", 16);
        PostboxConfig config = Fixtures.engineConfig(concurrency);
        WebhookSecret secret = WebhookSecret.generate();
        WebhookVerifier verifier = WebhookVerifier.builder().secret(secret).build();
        Receiver receiver = new Receiver(receiverThreads, verifier);
        HikariDataSource ds = Db.create();
        OkHttpClient base = new OkHttpClient.Builder()
                .connectionPool(new ConnectionPool(poolIdle, 5, TimeUnit.MINUTES))
                .build();
        HttpDelivery delivery = HttpDelivery.builder()
                .ssrfPolicy(
                        SsrfPolicy.custom().allowList(List.of("127.0.0.1/32")).build())
                .baseClient(base)
                .build();
        HttpDeliveryModule http = HttpDeliveryModule.builder(ds)
                .delivery(delivery)
                .secretCipher(AesGcmSecretCipher.of(Map.of("bench", AesGcmSecretCipher.generateKey()), "bench"))
                .build();
        CountDownLatch done = new CountDownLatch(1);
        AtomicLong completed = new AtomicLong();
        AtomicLong failed = new AtomicLong();
        Histogram attempt = new Histogram(TimeUnit.SECONDS.toMicros(60), 3);
        PostboxListener listener = new PostboxListener() {
            @Override
            public void completed(Job job, Duration duration) {
                synchronized (attempt) {
                    attempt.recordValue(Math.min(duration.toNanos() / 1000, TimeUnit.SECONDS.toMicros(60)));
                }
                if (completed.incrementAndGet() == deliveries) {
                    done.countDown();
                }
            }

            @Override
            public void failed(Job job, Throwable error, Duration retryIn) {
                failed.incrementAndGet();
            }

            @Override
            public void dead(Job job, String reason) {
                failed.incrementAndGet();
            }
        };
        Postbox postbox = Postbox.builder(ds)
                .config(config)
                .listener(listener)
                .module(http)
                .build();
        try {
            http.endpoints()
                    .register(Endpoint.builder(ENDPOINT, receiver.url())
                            .secret(secret)
                            .build());
            long e0 = System.nanoTime();
            enqueue(ds, http, postbox, deliveries);
            double enqueueSeconds = (System.nanoTime() - e0) / 1e9;
            Fixtures.execute(ds, "VACUUM ANALYZE outbox_job");
            log.info("http: {} deliveries enqueued in {} s", deliveries, Env.round(enqueueSeconds, 1));

            List<Map<String, Object>> samples = new ArrayList<>();
            String failure = null;
            long t0 = System.nanoTime();
            long deadline = t0 + TimeUnit.MINUTES.toNanos(Long.getLong("bench.httpTimeoutMinutes", 5));
            postbox.start();
            while (!done.await(1, TimeUnit.SECONDS)) {
                Map<String, Object> sample = new LinkedHashMap<>();
                sample.put("t", Env.round((System.nanoTime() - t0) / 1e9, 1));
                sample.put("completed", completed.get());
                sample.put("received", receiver.received.get());
                samples.add(sample);
                if (System.nanoTime() > deadline) {
                    failure = "timeout: " + completed.get() + " of " + deliveries + " completed, "
                            + receiver.received.get() + " received";
                    break;
                }
            }
            double seconds = (System.nanoTime() - t0) / 1e9;
            postbox.stop();

            Map<String, Object> r = env.result("http", deliveries, seconds);
            r.put("completed", failure == null);
            r.put("completedJobs", completed.get());
            r.put("failedAttempts", failed.get());
            r.put("received", receiver.received.get());
            r.put("signaturesVerified", receiver.verified.get());
            r.put("signatureFailures", receiver.badSignatures.get());
            r.put("enqueueSeconds", Env.round(enqueueSeconds, 3));
            synchronized (attempt) {
                // the engine's handler duration: one signed POST and its 204, per delivery
                r.put("p50Ms", Env.round(attempt.getValueAtPercentile(50) / 1000.0, 3));
                r.put("p99Ms", Env.round(attempt.getValueAtPercentile(99) / 1000.0, 3));
                r.put("p999Ms", Env.round(attempt.getValueAtPercentile(99.9) / 1000.0, 3));
            }
            r.put("latencyMeasures", "handler duration (one signed POST to the receiver and its 204)");
            r.put("samples", samples);
            Map<String, Object> cfg = Fixtures.describe(config);
            cfg.put("okHttpIdleConnections", poolIdle);
            cfg.put("receiverThreads", receiverThreads);
            r.put("config", cfg);
            if (failure != null) {
                r.put("jobsPerSecond", null);
                r.put("notes", "DID NOT COMPLETE: " + failure);
                log.warn("http did not complete: {}", failure);
            } else {
                r.put(
                        "notes",
                        "delivery-http, one endpoint (no rate limit), keyed + signed, JDK HttpServer 204 on"
                                + " 127.0.0.1, " + concurrency + " engine threads, claim batch "
                                + config.claimBatchSize() + ", prefetch " + config.prefetch());
                log.info(
                        "http: {} deliveries in {} s = {} /s",
                        deliveries,
                        Env.round(seconds, 2),
                        r.get("jobsPerSecond"));
            }
            if (receiver.badSignatures.get() > 0) {
                throw new IllegalStateException("http: " + receiver.badSignatures.get() + " signatures did not verify");
            }
            return r;
        } finally {
            postbox.stop();
            http.close();
            delivery.close();
            base.dispatcher().executorService().shutdown();
            base.connectionPool().evictAll();
            receiver.close();
            Db.drop(ds);
        }
    }

    /** Builds each job exactly as {@code webhooks().send(endpoint, payload, key)} does, 1,000 per transaction. */
    private static void enqueue(HikariDataSource ds, HttpDeliveryModule http, Postbox postbox, int deliveries)
            throws SQLException {
        int batch = 1000;
        for (int from = 0; from < deliveries; from += batch) {
            List<JobRequest> requests = new ArrayList<>(batch);
            for (int i = from; i < Math.min(deliveries, from + batch); i++) {
                String payload = "{\"type\":\"invoice.paid\",\"invoice\":" + i + ",\"amount\":1250}";
                requests.add(http.webhooks().delivery(ENDPOINT, payload, "invoice-" + i, Map.of()));
            }
            try (Connection c = ds.getConnection()) {
                c.setAutoCommit(false);
                postbox.outbox().enqueueAll(c, requests);
                c.commit();
            }
        }
    }

    /** A no-op webhook receiver: reads the body, answers 204, verifies every 100th signature. */
    static final class Receiver implements AutoCloseable {
        final AtomicLong received = new AtomicLong();
        final AtomicLong verified = new AtomicLong();
        final AtomicLong badSignatures = new AtomicLong();
        private final HttpServer server;
        private final ExecutorService executor;
        private final WebhookVerifier verifier;

        Receiver(int threads, WebhookVerifier verifier) throws IOException {
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
}
