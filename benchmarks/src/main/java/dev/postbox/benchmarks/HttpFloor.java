package dev.postbox.benchmarks;

import dev.postbox.http.signing.WebhookSecret;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Scenario http-floor: the webhook receiver in its own JVM ({@link ReceiverChild}); against it, in
 * one run, the bare OkHttp client ({@link BareWebhookClient}, the floor), Postbox's delivery-http
 * ({@link Http#deliver}), and the bare client again: the same number of the same signed requests
 * with the same threads and connection pool. The floor is the rate of both bare passes together
 * (so the receiver's warm-up and drift weigh on both sides); reports it, Postbox's rate and Postbox
 * ÷ floor (the target: ≥ 0.6).
 */
final class HttpFloor {

    private static final Logger log = LoggerFactory.getLogger(HttpFloor.class);
    static final String NAME = "http-floor";
    static final double RATIO_TARGET = 0.6;

    private HttpFloor() {}

    static Map<String, Object> run(Env env, int deliveries) throws Exception {
        Http.Settings settings = Http.Settings.fromSystemProperties();
        WebhookSecret secret = WebhookSecret.generate();
        try (ChildJvm receiver = ChildJvm.start(
                "receiver", ReceiverChild.class, List.of(), List.of(Integer.toString(settings.receiverThreads())))) {
            receiver.send(secret.serialized());
            String url = receiver.awaitReady(Duration.ofMinutes(2));
            BareWebhookClient.Posted before = BareWebhookClient.post(url, secret, deliveries, settings);
            Http.Delivered postbox = Http.deliver(deliveries, url, secret, settings);
            BareWebhookClient.Posted after = BareWebhookClient.post(url, secret, deliveries, settings);
            double floorRate = 2.0 * deliveries / (before.seconds() + after.seconds());
            log.info(
                    "http floor: {} bare OkHttp posts in {} s before Postbox and {} s after, {} /s together",
                    deliveries,
                    Env.round(before.seconds(), 2),
                    Env.round(after.seconds(), 2),
                    Env.round(floorRate, 1));
            receiver.send("stop");
            Map<String, Object> received = receiver.awaitResult(Duration.ofMinutes(2));

            Map<String, Object> r = env.result(NAME, deliveries, postbox.seconds());
            r.putAll(postbox.fields());
            Double ratio = null;
            if (postbox.failure() != null) {
                r.put("jobsPerSecond", null);
            } else {
                ratio = Env.round(deliveries / postbox.seconds() / floorRate, 3);
            }
            r.put("httpFloorPerSecond", Env.round(floorRate, 1));
            r.put("httpFloorPerSecondBefore", Env.round(deliveries / before.seconds(), 1));
            r.put("httpFloorPerSecondAfter", Env.round(deliveries / after.seconds(), 1));
            r.put("httpFloorNon2xx", before.failed() + after.failed());
            r.put("ratioToHttpFloor", ratio);
            r.put("ratioTarget", RATIO_TARGET);
            r.put("receiverInOwnJvm", true);
            r.putAll(received);
            r.put(
                    "notes",
                    postbox.failure() != null
                            ? "DID NOT COMPLETE: " + postbox.failure()
                            : "receiver in its own JVM; bare OkHttp " + Math.round(floorRate) + "/s, Postbox "
                                    + Math.round(deliveries / postbox.seconds()) + "/s, ratio " + ratio + "; "
                                    + settings.concurrency() + " threads both");
            long badSignatures = ((Number) received.get("signatureFailures")).longValue();
            long refused = before.failed() + after.failed();
            if (badSignatures > 0 || refused > 0) {
                throw new IllegalStateException("http-floor: " + badSignatures + " signatures did not verify, "
                        + refused + " bare requests were refused");
            }
            log.info("http-floor: {}", r.get("notes"));
            return r;
        }
    }
}
