package dev.postbox.chaos;

import dev.postbox.Job;
import dev.postbox.http.signing.WebhookVerifier;
import dev.postbox.http.webhook.Webhooks;
import java.io.IOException;
import java.time.Duration;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import okhttp3.Interceptor;
import okhttp3.Request;
import okhttp3.Response;
import okio.Buffer;

/**
 * The harness's own deliberate defects in a worker process, for the negative controls ({@link
 * Control}): each is switched on by its {@code -Dchaos.control.<name>=true} and acts only on its
 * marked slice of the traffic (a kind and a {@code seq} residue no other defect uses), so that it
 * moves its own counter and leaves the others meaningful. All off in the valid run.
 */
final class WorkerDefects {

    static final String LOST = "chaos.control.lost";
    static final String MISROUTED_EFFECT = "chaos.control.misroutedEffect";
    static final String FAN_OUT_SKIPS_A_SUBSCRIBER = "chaos.control.fanOutSkipsASubscriber";
    static final String FAN_OUT_NEVER_COMPLETES = "chaos.control.fanOutNeverCompletes";
    static final String BAD_SIGNATURE = "chaos.control.badSignature";
    /**
     * {@link Control#TENANT_SWAP}: the local handler and the webhook delivery handler get some jobs
     * ({@link ChaosTenants#swapped}) as the next tenant's.
     */
    static final String TENANT_SWAP = "chaos.control.tenantSwap";
    /**
     * {@link Control#HUNG_LATE_EFFECT_ESCAPES}: a deaf hung handler's first attempt of an odd seq, given
     * up for its time limit, writes its effect on a connection of its own when it comes back.
     */
    static final String HUNG_LATE_EFFECT_ESCAPES = "chaos.control.hungLateEffectEscapes";
    /** Set on one incarnation only (the driver's choice): it halts this long after READY. */
    static final String EXIT_AFTER_MS = "chaos.control.exitAfterMs";

    /** {@link Control#LOST}: unordered local jobs whose seq is a multiple of this lose their effect. */
    static final int LOST_EVERY = 50;
    /** {@link Control#MISROUTED_EFFECT}: unordered local jobs with {@code seq % 25 == 10}. */
    static final int MISROUTED_RESIDUE = 10;
    /** {@link Control#FAN_OUT_SKIPS_A_SUBSCRIBER}: events with {@code seq % 5 == 2}, at this subscriber. */
    static final String SKIPPED_SUBSCRIBER = "sub5";

    static final int SKIPPED_EVENT_RESIDUE = 2;
    /** {@link Control#FAN_OUT_NEVER_COMPLETES}: events with {@code seq % 5 == 4}. */
    static final int PARKED_EVENT_RESIDUE = 4;
    /** How far a parked fan-out job is snoozed: far beyond any run's drain. */
    static final Duration PARKED_FOR = Duration.ofHours(1);
    /** {@link Control#BAD_SIGNATURE}: requests to {@code rx} with {@code seq % 50 == 30}. */
    static final int BAD_SIGNATURE_RESIDUE = 30;
    /** {@link Control#WORKER_EXITS}: the exit status (not a crash point's, 91-94). */
    static final int EXIT_STATUS = 1;

    private static final Pattern SEQ = Pattern.compile("\"seq\"\\s*:\\s*(\\d+)");

    final boolean lost;
    final boolean misroutedEffect;
    final boolean fanOutSkipsASubscriber;
    final boolean fanOutNeverCompletes;
    final boolean badSignature;
    final boolean tenantSwap;
    final boolean hungLateEffectEscapes;
    final long exitAfterMillis;

    private WorkerDefects(
            boolean lost,
            boolean misroutedEffect,
            boolean fanOutSkipsASubscriber,
            boolean fanOutNeverCompletes,
            boolean badSignature,
            boolean tenantSwap,
            boolean hungLateEffectEscapes,
            long exitAfterMillis) {
        this.lost = lost;
        this.misroutedEffect = misroutedEffect;
        this.fanOutSkipsASubscriber = fanOutSkipsASubscriber;
        this.fanOutNeverCompletes = fanOutNeverCompletes;
        this.badSignature = badSignature;
        this.tenantSwap = tenantSwap;
        this.hungLateEffectEscapes = hungLateEffectEscapes;
        this.exitAfterMillis = exitAfterMillis;
    }

    static WorkerDefects fromSystemProperties() {
        return new WorkerDefects(
                Boolean.getBoolean(LOST),
                Boolean.getBoolean(MISROUTED_EFFECT),
                Boolean.getBoolean(FAN_OUT_SKIPS_A_SUBSCRIBER),
                Boolean.getBoolean(FAN_OUT_NEVER_COMPLETES),
                Boolean.getBoolean(BAD_SIGNATURE),
                Boolean.getBoolean(TENANT_SWAP),
                Boolean.getBoolean(HUNG_LATE_EFFECT_ESCAPES),
                Long.getLong(EXIT_AFTER_MS, 0));
    }

    /** {@link Control#LOST}: the local handler completes this job without writing its effect. */
    boolean skipsEffect(String orderingKey, long seq) {
        return lost && orderingKey == null && seq % LOST_EVERY == 0;
    }

    /** {@link Control#HUNG_LATE_EFFECT_ESCAPES}: this given-up deaf attempt's late write escapes its transaction. */
    boolean hungLateEffectEscapes(long seq) {
        return hungLateEffectEscapes && seq % 2 == 1;
    }

    /** {@link Control#TENANT_SWAP}: the tenant the local handler records for this job. */
    String tenantSeen(String tenant, long seq) {
        return tenantSwap && ChaosTenants.swapped(seq) ? ChaosTenants.next(tenant) : tenant;
    }

    /**
     * {@link Control#TENANT_SWAP}: the job as the webhook delivery handler gets it: a delivery (not a
     * fan-out event, whose tenant picks its subscribers) of a swapped seq as the next tenant's (its
     * webhook-id and tenant rate limit then are that tenant's).
     */
    Job asSeenByDelivery(Job job) {
        if (!tenantSwap || !job.kind().equals(Webhooks.DELIVERY_KIND) || !ChaosTenants.swapped(seq(job))) {
            return job;
        }
        return job.toBuilder()
                .tenant(ChaosTenants.next(job.tenant().orElse(null)))
                .build();
    }

    /** {@link Control#MISROUTED_EFFECT}: the local handler also sends this job to {@code rx}. */
    boolean misroutes(String orderingKey, long seq) {
        return misroutedEffect && orderingKey == null && seq % 25 == MISROUTED_RESIDUE;
    }

    /** {@link Control#FAN_OUT_SKIPS_A_SUBSCRIBER}: this delivery completes without being sent. */
    boolean skipsDelivery(Job job) {
        return fanOutSkipsASubscriber
                && job.kind().equals(Webhooks.DELIVERY_KIND)
                && job.endpoint().filter(SKIPPED_SUBSCRIBER::equals).isPresent()
                && seq(job) % 5 == SKIPPED_EVENT_RESIDUE;
    }

    /** {@link Control#FAN_OUT_NEVER_COMPLETES}: this fan-out job is snoozed after its expansion. */
    boolean parks(Job job) {
        return fanOutNeverCompletes && job.kind().equals(Webhooks.FAN_OUT_KIND) && seq(job) % 5 == PARKED_EVENT_RESIDUE;
    }

    /** The payload's {@code seq}, or -1. */
    static long seq(Job job) {
        Object seq = job.payload(Map.class).get("seq");
        return seq instanceof Number n ? n.longValue() : -1;
    }

    /**
     * {@link Control#BAD_SIGNATURE}, in the worker's HTTP client: a request to {@code rx} of the
     * slice goes out first with a corrupted {@code webhook-signature} (the receiver answers 401), then
     * as signed, whose response is the delivery's. Every other request passes untouched.
     */
    Interceptor badSignatureInterceptor() {
        return chain -> {
            Request request = chain.request();
            if (!badSignature
                    || !request.url().encodedPath().endsWith("/hook/" + ChaosEndpoints.RX)
                    || seq(request) % 50 != BAD_SIGNATURE_RESIDUE) {
                return chain.proceed(request);
            }
            Request forged = request.newBuilder()
                    .header(WebhookVerifier.SIGNATURE_HEADER, "v1,Y2hhb3MtY29udHJvbC1iYWQtc2lnbmF0dXJlLTAwMDA=")
                    .build();
            try (Response rejected = chain.proceed(forged)) {
                System.out.println("CONTROL bad-signature sent, answered " + rejected.code());
            }
            return chain.proceed(request);
        };
    }

    private static long seq(Request request) throws IOException {
        if (request.body() == null) {
            return -1;
        }
        Buffer body = new Buffer();
        request.body().writeTo(body);
        Matcher m = SEQ.matcher(body.readUtf8());
        return m.find() ? Long.parseLong(m.group(1)) : -1;
    }

    /**
     * {@link Control#WORKER_EXITS}: when this incarnation was given a delay, halts the JVM that long
     * from now with {@link #EXIT_STATUS} (no shutdown hooks, as a JVM that dies of an error of its own).
     */
    void exitLaterIfPlanned() {
        if (exitAfterMillis <= 0) {
            return;
        }
        Thread t = new Thread(
                () -> {
                    try {
                        Thread.sleep(exitAfterMillis);
                    } catch (InterruptedException e) {
                        return;
                    }
                    System.out.println("CONTROL exit " + EXIT_STATUS);
                    System.out.flush();
                    Runtime.getRuntime().halt(EXIT_STATUS);
                },
                "chaos-control-exit");
        t.setDaemon(true);
        t.start();
    }
}
