package dev.postbox.benchmarks;

import dev.postbox.http.signing.WebhookSecret;
import dev.postbox.http.signing.WebhookSigner;
import dev.postbox.http.signing.WebhookVerifier;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;

/**
 * The HTTP floor: {@code threads} threads posting {@code requests} signed requests with a bare OkHttp
 * client, synchronously like the engine's workers, with the headers {@code HttpDelivery} sends
 * (Idempotency-Key, webhook-id, webhook-timestamp, webhook-signature, JSON body of {@link
 * Http#payload}). No database, no queue: the ceiling of any delivery framework against this receiver.
 */
final class BareWebhookClient {

    private static final MediaType JSON = MediaType.get("application/json");

    private BareWebhookClient() {}

    record Posted(double seconds, long ok, long failed) {}

    static Posted post(String url, WebhookSecret secret, int requests, Http.Settings settings) throws Exception {
        OkHttpClient client = settings.client();
        WebhookSigner signer = WebhookSigner.of(secret);
        AtomicInteger next = new AtomicInteger();
        AtomicLong ok = new AtomicLong();
        AtomicLong failed = new AtomicLong();
        AtomicReference<Throwable> error = new AtomicReference<>();
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < settings.concurrency(); t++) {
            threads.add(new Thread(
                    () -> {
                        int i;
                        while (error.get() == null && (i = next.getAndIncrement()) < requests) {
                            try (Response response =
                                    client.newCall(request(url, signer, i)).execute()) {
                                (response.isSuccessful() ? ok : failed).incrementAndGet();
                            } catch (Throwable e) {
                                error.compareAndSet(null, e);
                            }
                        }
                    },
                    "bare-client-" + t));
        }
        long t0 = System.nanoTime();
        threads.forEach(Thread::start);
        for (Thread t : threads) {
            t.join();
        }
        double seconds = (System.nanoTime() - t0) / 1e9;
        Http.Settings.close(client);
        if (error.get() != null) {
            throw new IllegalStateException("bare OkHttp client failed: " + error.get(), error.get());
        }
        return new Posted(seconds, ok.get(), failed.get());
    }

    private static Request request(String url, WebhookSigner signer, int i) {
        byte[] body = Http.payload(i).getBytes(StandardCharsets.UTF_8);
        String id = "bench-" + i;
        long timestamp = System.currentTimeMillis() / 1000;
        return new Request.Builder()
                .url(url)
                .post(RequestBody.create(body, JSON))
                .header("User-Agent", "postbox-bench")
                .header("Idempotency-Key", id)
                .header(WebhookVerifier.ID_HEADER, id)
                .header(WebhookVerifier.TIMESTAMP_HEADER, Long.toString(timestamp))
                .header(WebhookVerifier.SIGNATURE_HEADER, signer.sign(id, timestamp, body))
                .build();
    }
}
