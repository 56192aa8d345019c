package dev.postbox.benchmarks;

import dev.postbox.http.WebhookSecret;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Scenario http-floor: the webhook receiver in its own JVM ({@link ReceiverChild}); against it, in
 * one run, first the bare OkHttp client ({@link BareWebhookClient}, the floor) and then Postbox's
 * delivery-http ({@link Http#deliver}), the same number of the same signed requests with the same
 * threads and connection pool. Reports both rates and Postbox ÷ floor (the target: ≥ 0.6).
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
            BareWebhookClient.Posted floor = BareWebhookClient.post(url, secret, deliveries, settings);
            double floorRate = deliveries / floor.seconds();
            log.info(
                    "http floor: {} bare OkHttp posts in {} s = {} /s",
                    deliveries,
                    Env.round(floor.seconds(), 2),
                    Env.round(floorRate, 1));
            Http.Delivered postbox = Http.deliver(deliveries, url, secret, settings);
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
            r.put("httpFloorSeconds", Env.round(floor.seconds(), 3));
            r.put("httpFloorNon2xx", floor.failed());
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
            if (badSignatures > 0 || floor.failed() > 0) {
                throw new IllegalStateException("http-floor: " + badSignatures + " signatures did not verify, "
                        + floor.failed() + " bare requests were refused");
            }
            log.info("http-floor: {}", r.get("notes"));
            return r;
        }
    }
}
