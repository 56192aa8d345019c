package dev.postbox.http.webhook;

import dev.postbox.Job;
import dev.postbox.JobOutcome;
import dev.postbox.OutcomeHandler;
import dev.postbox.RetryPolicy;
import dev.postbox.TenantId;
import dev.postbox.http.AttemptResult;
import dev.postbox.http.DeliveryOutcome;
import dev.postbox.http.DeliveryRequest;
import dev.postbox.http.FailureCause;
import dev.postbox.http.HttpDelivery;
import dev.postbox.http.internal.NegativeControls;
import dev.postbox.http.signing.WebhookSigner;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Delivers one webhook job ({@value Webhooks#DELIVERY_KIND}) to its endpoint: looks the endpoint up, takes its
 * cluster-wide rate-limit permits (the endpoint's, the job's tenant's and the global one, each when
 * configured; without one the job is snoozed at once, without spending an attempt and without
 * holding the worker thread, to come back when a permit is likely; see {@link PermitPool}), makes one signed attempt with {@link HttpDelivery} and maps the outcome:
 *
 * <ul>
 *   <li>2xx: done;
 *   <li>retryable (5xx, 408/425/429, timeouts, connection errors, redirects): retried after the
 *       endpoint's {@code Retry-After} when given, else with the endpoint's retry policy or the
 *       module's jittered backoff; a 429 also lowers the endpoint's cluster-wide rate for a while;
 *       a failure streak beyond the {@link SustainedFailurePolicy} disables the endpoint;
 *   <li>other 4xx, refused destination: dead-lettered at once;
 *   <li>410 Gone: the endpoint is disabled and the job dead-lettered (enabling replays it).
 * </ul>
 *
 * <p>While an endpoint is disabled its jobs are parked: snoozed for {@code parkDelay} without spending
 * attempts; {@link EndpointRegistry#enable} makes them due at once.
 */
final class WebhookDeliveryHandler implements OutcomeHandler {

    /** Job header carrying the event type of a published event; sent as {@value Webhooks#EVENT_TYPE_HEADER}. */
    static final String EVENT_TYPE_JOB_HEADER = "postbox-event-type";

    private static final String TRACEPARENT = "traceparent";
    private static final String TRACESTATE = "tracestate";

    private static final Logger log = LoggerFactory.getLogger(WebhookDeliveryHandler.class);

    private final EndpointRegistry registry;
    private final HttpDelivery delivery;
    private final RateLimitStore rateLimits;
    private final TenantRates tenantRates;
    private final DeliveryLine line;
    private final WebhookListener listener;
    private final WebhookInstrumentation instrumentation;
    private final HttpDeliveryModule.Settings settings;
    private final Map<String, PermitPool> pools = new ConcurrentHashMap<>();
    private final Map<String, Semaphore> inFlight = new ConcurrentHashMap<>();
    private final Set<String> locallyFailing = ConcurrentHashMap.newKeySet();
    private volatile boolean globalConfigured;

    WebhookDeliveryHandler(
            EndpointRegistry registry,
            HttpDelivery delivery,
            RateLimitStore rateLimits,
            TenantRates tenantRates,
            DeliveryLine line,
            WebhookListener listener,
            WebhookInstrumentation instrumentation,
            HttpDeliveryModule.Settings settings) {
        this.registry = registry;
        this.delivery = delivery;
        this.rateLimits = rateLimits;
        this.tenantRates = tenantRates;
        this.line = line;
        this.listener = listener;
        this.instrumentation = instrumentation;
        this.settings = settings;
        NegativeControls.warnIfEnabled(log);
    }

    @Override
    public JobOutcome attempt(Job job) throws Exception {
        Optional<String> named = job.endpoint();
        if (named.isEmpty()) {
            return JobOutcome.dead("webhook job " + job.id() + " has no endpoint: enqueue deliveries with"
                    + " Webhooks.send(endpoint, payload, key)");
        }
        String name = named.get();
        Endpoint endpoint;
        try {
            Optional<Endpoint> found = registry.cached(name);
            if (found.isEmpty()) {
                return JobOutcome.dead("webhook endpoint '" + name + "' is not registered (was it removed?);"
                        + " register it and replay this dead letter");
            }
            endpoint = found.get();
        } catch (IllegalArgumentException e) {
            // The stored row fails the endpoint's checks (e.g. a header value changed by SQL): no attempt can work.
            return JobOutcome.dead("webhook endpoint '" + name + "' as stored is invalid: " + e.getMessage()
                    + "; fix it with EndpointRegistry.update and replay this dead letter");
        }
        if (!endpoint.isEnabled()) {
            return JobOutcome.snooze(
                    settings.parkDelay(),
                    "endpoint '" + name + "' is disabled ("
                            + endpoint.disabledReason().orElse("no reason") + "); parked until it is enabled");
        }
        try {
            request(job, endpoint, null, Map.of()); // what every attempt sends, checked before a permit is spent
        } catch (IllegalArgumentException e) {
            // A value that cannot be sent (written before it was validated, or behind Postbox's back) fails
            // every attempt the same way: dead-letter now, with the reason, instead of spending the budget.
            return JobOutcome.dead(
                    "webhook job " + job.id() + " for endpoint '" + name + "' cannot be sent: " + e.getMessage());
        }
        Semaphore slots = endpoint.maxInFlight().map(n -> slots(name, n)).orElse(null);
        if (slots != null && !slots.tryAcquire(settings.maxPermitWait().toMillis(), TimeUnit.MILLISECONDS)) {
            Duration wait = Duration.ofMillis(100 + ThreadLocalRandom.current().nextLong(900));
            listener.throttled(name, wait);
            return JobOutcome.snooze(
                    wait,
                    "endpoint '" + name + "' has " + endpoint.maxInFlight().get()
                            + " deliveries in flight in this process");
        }
        try {
            Permits permits = takePermits(job, endpoint);
            if (permits.snooze() != null) {
                return permits.snooze();
            }
            PermitPool.Grant permit = permits.grant();
            AttemptResult result = instrumentation.send(
                    job, name, trace -> delivery.deliver(request(job, endpoint, permit.sendBy(), trace)));
            if (result.cause() == FailureCause.NOT_SENT) {
                return permitExpired(name, result);
            }
            listener.attempted(job, name, result);
            return conclude(endpoint, result);
        } finally {
            if (slots != null) {
                slots.release();
            }
        }
    }

    /** The permits of an attempt: a grant to send now, or how long to snooze for one. */
    private record Permits(PermitPool.Grant grant, JobOutcome.@Nullable Snooze snooze) {}

    /**
     * Takes the endpoint's permit, the job's tenant's and the global one (or snoozes the job); the
     * earliest send-by of them.
     */
    private Permits takePermits(Job job, Endpoint endpoint) {
        String name = endpoint.name();
        PermitPool.Grant grant = PermitPool.Grant.UNLIMITED;
        try {
            if (endpoint.ratePerSecond().isPresent()) {
                PermitPool pool = pools.computeIfAbsent(name, k -> newPool(endpoint));
                grant = pool.acquire(settings.maxPermitWait());
                if (grant.snooze() != null) {
                    lineUpOthers(name, pool);
                    return snooze(name, grant.snooze(), "rate limit of endpoint '" + name + "'");
                }
            }
            String tenantBucket = tenantRates.bucket(TenantId.key(job.tenant().orElse(null)));
            if (tenantBucket != null) {
                PermitPool pool =
                        pools.computeIfAbsent(tenantBucket, k -> new PermitPool(k, rateLimits, settings.leaseChunk()));
                PermitPool.Grant tenantGrant = pool.acquire(settings.maxPermitWait());
                Duration wait = tenantGrant.snooze();
                if (wait != null) {
                    return snooze(
                            name,
                            wait,
                            "webhook rate limit of tenant '"
                                    + TenantId.name(job.tenant().orElse(null)) + "'");
                }
                grant = earlier(grant, tenantGrant);
            }
            if (settings.globalRate() != null) {
                if (!globalConfigured) {
                    rateLimits.configure(RateLimitStore.GLOBAL, settings.globalRate(), settings.globalBurst());
                    globalConfigured = true;
                }
                PermitPool global = pools.computeIfAbsent(
                        RateLimitStore.GLOBAL, k -> new PermitPool(k, rateLimits, settings.leaseChunk()));
                PermitPool.Grant globalGrant = global.acquire(settings.maxPermitWait());
                if (globalGrant.snooze() != null) {
                    return snooze(name, globalGrant.snooze(), "global webhook rate limit");
                }
                grant = earlier(grant, globalGrant);
            }
            return new Permits(grant, null);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Permits(
                    grant, JobOutcome.snooze(Duration.ZERO, "interrupted while waiting for rate-limit permits"));
        } catch (SQLException e) {
            log.warn("Leasing rate-limit permits for endpoint {} failed: {}", name, e.getMessage());
            return new Permits(
                    grant,
                    JobOutcome.snooze(Duration.ofSeconds(1), "leasing rate-limit permits failed: " + e.getMessage()));
        }
    }

    /** Of two grants, the one whose request must be sent first (a permit's allowance is the shorter). */
    private static PermitPool.Grant earlier(PermitPool.Grant a, PermitPool.Grant b) {
        Long aBy = a.sendBy();
        Long bBy = b.sendBy();
        if (bBy == null) {
            return a;
        }
        return aBy == null || bBy - aBy < 0 ? b : a;
    }

    /** Lines up the endpoint's other due deliveries behind this one (at most once a second). */
    private void lineUpOthers(String name, PermitPool pool) {
        Duration notBefore = pool.startLineUp();
        if (notBefore == null) {
            return;
        }
        int lined = 0;
        try {
            lined = line.lineUp(name, notBefore);
        } catch (SQLException e) {
            log.warn("Lining up the waiting deliveries of endpoint {} failed: {}", name, e.getMessage());
        } finally {
            pool.linedUp();
        }
        if (lined > 0) {
            log.debug("Endpoint {}: {} waiting deliveries lined up for its permits", name, lined);
            listener.linedUp(name, lined);
        }
    }

    private PermitPool newPool(Endpoint endpoint) {
        // The negative control: a bucket of this process's own, instead of the endpoint's cluster-wide one.
        String bucket = NegativeControls.RATE_LIMIT_PER_PROCESS
                ? endpoint.name() + "@" + ProcessHandle.current().pid()
                : endpoint.name();
        try {
            rateLimits.configure(bucket, endpoint.ratePerSecond().orElseThrow(), endpoint.burst());
        } catch (SQLException e) {
            throw new IllegalStateException("creating the rate bucket of endpoint " + endpoint.name() + " failed", e);
        }
        return new PermitPool(bucket, rateLimits, settings.leaseChunk());
    }

    /**
     * The request was not sent: its permit expired before its connection was ready. The job takes
     * the next slot of the endpoint's line, without spending an attempt (nothing reached the
     * endpoint, so nothing is owed to the bound the permit stood for).
     */
    private JobOutcome permitExpired(String name, AttemptResult result) {
        PermitPool pool = pools.get(name);
        Duration wait;
        try {
            wait = pool != null ? pool.nextSlot() : Duration.ofMillis(10);
        } catch (SQLException e) {
            wait = Duration.ofSeconds(1);
        }
        listener.throttled(name, wait);
        return JobOutcome.snooze(wait, "rate limit of endpoint '" + name + "': " + result.error());
    }

    private Permits snooze(String endpoint, Duration wait, String what) {
        listener.throttled(endpoint, wait);
        return new Permits(
                PermitPool.Grant.UNLIMITED,
                JobOutcome.snooze(wait, "waiting " + wait.toMillis() + " ms for a permit of the " + what));
    }

    private Semaphore slots(String name, int max) {
        Semaphore s = inFlight.get(name);
        if (s == null || s.availablePermits() > max) {
            s = inFlight.compute(
                    name, (k, old) -> old == null || old.availablePermits() > max ? new Semaphore(max) : old);
        }
        return s;
    }

    /**
     * The request of this attempt. It carries the trace context of the send when the instrumentation
     * gives one ({@code trace}), else the one stored with the job at enqueue.
     */
    private DeliveryRequest request(Job job, Endpoint endpoint, @Nullable Long sendBy, Map<String, String> trace) {
        Map<String, String> context = trace.get(TRACEPARENT) != null ? trace : job.headers();
        DeliveryRequest.Builder request = DeliveryRequest.builder()
                .sendDeadline(sendBy)
                .url(endpoint.url())
                .messageId(messageId(job))
                .body(job.payloadJson())
                .signer(WebhookSigner.of(endpoint.secrets()))
                .traceparent(context.get(TRACEPARENT))
                .tracestate(context.get(TRACESTATE))
                .headers(endpoint.headers())
                .timeouts(endpoint.timeouts().orElse(null))
                .timeBudget(job.timeLeft().orElse(null));
        String eventType = job.headers().get(EVENT_TYPE_JOB_HEADER);
        if (eventType != null) {
            request.header(Webhooks.EVENT_TYPE_HEADER, eventType);
        }
        return request.build();
    }

    /** Every attempt of a job carries the same id: the job's stable key. */
    private static String messageId(Job job) {
        return NegativeControls.WEBHOOK_ID_PER_ATTEMPT
                ? job.stableKey() + "-attempt-" + job.attempt()
                : job.stableKey();
    }

    /**
     * The engine's outcome of an attempt that reached the endpoint (or failed to): {@link
     * DeliveryOutcome} one to one, with the attempt's details for the attempt log. A retry waits the
     * endpoint's {@code Retry-After} when it gave one, with the endpoint's own retry policy when it has
     * one (its backoff, its cap), else with the module's; a 410 stores the {@link
     * EndpointRegistry#DISABLED_CAUSE} cause, by which enabling the endpoint replays the dead letter.
     */
    private JobOutcome conclude(Endpoint endpoint, AttemptResult r) {
        String name = endpoint.name();
        return switch (r.outcome()) {
            case DONE -> {
                if (endpoint.consecutiveFailures() > 0 || locallyFailing.remove(name)) {
                    registry.recordSuccess(name);
                }
                yield JobOutcome.done();
            }
            case RETRY -> {
                if (Integer.valueOf(429).equals(r.statusCode())) {
                    lowerRate(endpoint, r);
                }
                recordFailure(name, r);
                JobOutcome.Retry retry = JobOutcome.retry(describe(name, r)).withDetails(details(name, r));
                if (r.retryAfter() != null) {
                    retry = retry.after(r.retryAfter());
                }
                Optional<RetryPolicy> own = endpoint.retryPolicy();
                yield own.isPresent() ? retry.withPolicy(own.get()) : retry;
            }
            case DEAD -> JobOutcome.dead(describe(name, r)).withDetails(details(name, r));
            case DISABLE_ENDPOINT -> {
                String reason = "HTTP " + r.statusCode() + " Gone: the receiver says this endpoint no longer exists";
                registry.disable(name, WebhookListener.DisableCause.GONE, reason);
                yield JobOutcome.dead(describe(name, r) + "; endpoint disabled")
                        .withCause(EndpointRegistry.DISABLED_CAUSE)
                        .withDetails(details(name, r));
            }
        };
    }

    /** The attempt log's details of a failed attempt (a done one carries none, so none are built). */
    private static JobOutcome.Details details(String name, AttemptResult r) {
        return new JobOutcome.Details(r.statusCode(), DeliveryFailureDetails.json(name, r));
    }

    private void lowerRate(Endpoint endpoint, AttemptResult r) {
        if (endpoint.ratePerSecond().isEmpty()) {
            return;
        }
        try {
            RateLimitStore.Throttle t = rateLimits.throttle(endpoint.name(), r.duration(), r.retryAfter());
            if (t == null) {
                return;
            }
            if (t.paused()) {
                log.info(
                        "Endpoint {} answered 429 at its lowest rate ({}% of {}/s): paused for its Retry-After of {}"
                                + " ms, for every process",
                        endpoint.name(),
                        Math.round(t.factor() * 100),
                        endpoint.ratePerSecond().get(),
                        r.retryAfter() == null ? 0 : r.retryAfter().toMillis());
            } else {
                log.debug(
                        "Endpoint {} answered 429: rate cut to {}% of {}/s, full again at {} without another 429",
                        endpoint.name(),
                        Math.round(t.factor() * 100),
                        endpoint.ratePerSecond().get(),
                        t.fullRateAt());
            }
            listener.rateLowered(endpoint.name(), t.factor(), t.fullRateAt());
        } catch (SQLException e) {
            log.warn("Lowering the rate of endpoint {} after a 429 failed: {}", endpoint.name(), e.getMessage());
        }
    }

    private void recordFailure(String name, AttemptResult r) {
        locallyFailing.add(name);
        EndpointStore.Streak streak = registry.recordFailure(name);
        if (streak.enabled() && settings.sustainedFailure().disables(streak.failures(), streak.duration())) {
            String reason = "sustained failure: " + streak.failures() + " consecutive failed deliveries over "
                    + streak.duration().toMinutes() + " min, the last: " + describe(name, r);
            registry.disable(name, WebhookListener.DisableCause.SUSTAINED_FAILURE, reason);
        }
    }

    private static String describe(String endpoint, AttemptResult r) {
        String what = r.statusCode() != null
                ? "HTTP " + r.statusCode()
                : r.cause().name().toLowerCase();
        return "webhook endpoint '" + endpoint + "' delivery failed: " + what
                + (r.error() != null && r.statusCode() == null ? " (" + r.error() + ")" : "")
                + (r.remoteAddress() != null ? " from " + r.remoteAddress() : "");
    }

    @Override
    public String toString() {
        return "WebhookDeliveryHandler[" + delivery + "]";
    }

    @Nullable
    PermitPool pool(String key) {
        return pools.get(key);
    }
}
