package dev.postbox.benchmarks;

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
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import okhttp3.ConnectionPool;
import okhttp3.OkHttpClient;
import org.HdrHistogram.Histogram;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Scenario 6: signed, keyed webhook deliveries through the delivery-http module to a no-op receiver
 * on 127.0.0.1 ({@link WebhookReceiver}, in this JVM). All deliveries are enqueued (in transactions
 * of 1,000) before the engine starts; the clock runs from {@code start()} to the commit of the last
 * completion. The receiver counts requests and verifies the Standard Webhooks signature of every
 * 100th one.
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

    /** {@code bench.http*} settings shared by the http and http-floor scenarios. */
    record Settings(int concurrency, int poolIdle, int receiverThreads) {

        static Settings fromSystemProperties() {
            int concurrency = Integer.getInteger("bench.concurrency", Integer.getInteger("bench.httpConcurrency", 64));
            return new Settings(
                    concurrency,
                    Integer.getInteger("bench.httpPoolIdle", concurrency),
                    Integer.getInteger("bench.httpReceiverThreads", 16));
        }

        OkHttpClient client() {
            return new OkHttpClient.Builder()
                    .connectionPool(new ConnectionPool(poolIdle, 5, TimeUnit.MINUTES))
                    .build();
        }

        static void close(OkHttpClient client) {
            client.dispatcher().executorService().shutdown();
            client.connectionPool().evictAll();
        }
    }

    /** What one Postbox delivery run measured. {@code failure} is null when every delivery completed. */
    record Delivered(double seconds, String failure, Map<String, Object> fields) {}

    /** The body of delivery {@code i}, the same for Postbox and the bare client of http-floor. */
    static String payload(int i) {
        return "{\"type\":\"invoice.paid\",\"invoice\":" + i + ",\"amount\":1250}";
    }

    static Map<String, Object> run(Env env, int deliveries) throws Exception {
        Settings settings = Settings.fromSystemProperties();
        WebhookSecret secret = WebhookSecret.generate();
        WebhookVerifier verifier = WebhookVerifier.builder().secret(secret).build();
        try (WebhookReceiver receiver = new WebhookReceiver(settings.receiverThreads(), verifier)) {
            Delivered d = deliver(deliveries, receiver.url(), secret, settings);
            Map<String, Object> r = env.result("http", deliveries, d.seconds());
            r.putAll(d.fields());
            r.put("received", receiver.received.get());
            r.put("signaturesVerified", receiver.verified.get());
            r.put("signatureFailures", receiver.badSignatures.get());
            if (d.failure() != null) {
                r.put("jobsPerSecond", null);
                r.put("notes", "DID NOT COMPLETE: " + d.failure());
            } else {
                r.put(
                        "notes",
                        "delivery-http, one endpoint (no rate limit), keyed + signed, JDK HttpServer 204 on"
                                + " 127.0.0.1, " + settings.concurrency() + " engine threads, claim batch "
                                + ((Map<?, ?>) d.fields().get("config")).get("claimBatchSize") + ", prefetch "
                                + ((Map<?, ?>) d.fields().get("config")).get("prefetch"));
            }
            if (receiver.badSignatures.get() > 0) {
                throw new IllegalStateException("http: " + receiver.badSignatures.get() + " signatures did not verify");
            }
            return r;
        }
    }

    /**
     * {@code deliveries} signed, keyed deliveries to {@code url} through {@link HttpDeliveryModule} on
     * a fresh database: enqueued first, then drained by one engine; the clock runs from {@code start()}.
     */
    static Delivered deliver(int deliveries, String url, WebhookSecret secret, Settings settings) throws Exception {
        PostboxConfig config = Fixtures.engineConfig(settings.concurrency());
        HikariDataSource ds = Db.create();
        OkHttpClient base = settings.client();
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
                    .register(Endpoint.builder(ENDPOINT, url).secret(secret).build());
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
                samples.add(sample);
                if (System.nanoTime() > deadline) {
                    failure = "timeout: " + completed.get() + " of " + deliveries + " completed";
                    break;
                }
            }
            double seconds = (System.nanoTime() - t0) / 1e9;
            postbox.stop();

            Map<String, Object> f = new LinkedHashMap<>();
            f.put("completed", failure == null);
            f.put("completedJobs", completed.get());
            f.put("failedAttempts", failed.get());
            f.put("enqueueSeconds", Env.round(enqueueSeconds, 3));
            synchronized (attempt) {
                // the engine's handler duration: one signed POST and its 204, per delivery
                f.put("p50Ms", StartLatency.ms(attempt, 50));
                f.put("p99Ms", StartLatency.ms(attempt, 99));
                f.put("p999Ms", StartLatency.ms(attempt, 99.9));
            }
            f.put("latencyMeasures", "handler duration (one signed POST to the receiver and its 204)");
            f.put("samples", samples);
            Map<String, Object> cfg = Fixtures.describe(config);
            cfg.put("okHttpIdleConnections", settings.poolIdle());
            cfg.put("receiverThreads", settings.receiverThreads());
            f.put("config", cfg);
            if (failure != null) {
                log.warn("http did not complete: {}", failure);
            } else {
                log.info(
                        "http: {} deliveries in {} s = {} /s",
                        deliveries,
                        Env.round(seconds, 2),
                        Env.round(deliveries / seconds, 1));
            }
            return new Delivered(seconds, failure, f);
        } finally {
            postbox.stop();
            http.close();
            delivery.close();
            Settings.close(base);
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
                requests.add(http.webhooks().delivery(ENDPOINT, payload(i), "invoice-" + i, Map.of()));
            }
            try (Connection c = ds.getConnection()) {
                c.setAutoCommit(false);
                postbox.outbox().enqueueAll(c, requests);
                c.commit();
            }
        }
    }
}
