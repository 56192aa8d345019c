package dev.postbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.postbox.internal.ClaimStore;
import dev.postbox.internal.ClaimedJob;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Tenants: keys unique per tenant, fair claims, caps, pause, and admin writes scoped to one tenant. */
class TenantTest extends DatabaseTest {

    private final Postbox producer() {
        return Postbox.builder(dataSource).build();
    }

    private EnqueueResult enqueue(Outbox outbox, JobRequest request) {
        return enqueueCommitted(outbox, request);
    }

    private static JobRequest keyed(String tenant, String key) {
        return JobRequest.builder("m")
                .payload(Map.of())
                .tenant(tenant)
                .idempotencyKey(key)
                .build();
    }

    private void enqueueMany(String tenant, int n) {
        List<JobRequest> jobs = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            jobs.add(JobRequest.builder("m")
                    .payload(Map.of("n", i))
                    .tenant(tenant)
                    .build());
        }
        tx.executeWithoutResult(s -> producer().outbox().enqueueAll(jobs));
    }

    @Test
    void theSameKeyInTwoTenantsMakesTwoJobs() {
        Outbox outbox = producer().outbox();
        EnqueueResult a = enqueue(outbox, keyed("tenant-a", "order-1"));
        EnqueueResult b = enqueue(outbox, keyed("tenant-b", "order-1"));
        EnqueueResult none = enqueue(
                outbox,
                JobRequest.builder("m")
                        .payload(Map.of())
                        .idempotencyKey("order-1")
                        .build());

        assertThat(List.of(a, b, none)).allMatch(EnqueueResult::created);
        assertThat(a.jobId()).isNotEqualTo(b.jobId()).isNotEqualTo(none.jobId());
        assertThat(count("SELECT count(*) FROM outbox_job WHERE idempotency_key = 'order-1'"))
                .isEqualTo(3);
        assertThat(jdbc.queryForList("SELECT tenant FROM outbox_job ORDER BY id", String.class))
                .containsExactly("tenant-a", "tenant-b", null);
    }

    @Test
    void theSameKeyTwiceInOneTenantReturnsTheFirst() {
        Outbox outbox = producer().outbox();
        EnqueueResult first = enqueue(outbox, keyed("tenant-a", "order-1"));
        EnqueueResult second = enqueue(outbox, keyed("tenant-a", "order-1"));
        // The default tenant keeps its own, unchanged semantics: twice is one job too.
        JobRequest defaultTenant = JobRequest.builder("m")
                .payload(Map.of())
                .idempotencyKey("order-1")
                .build();
        EnqueueResult d1 = enqueue(outbox, defaultTenant);
        EnqueueResult d2 = enqueue(outbox, defaultTenant);

        assertThat(first.created()).isTrue();
        assertThat(second.created()).isFalse();
        assertThat(second.jobId()).isEqualTo(first.jobId());
        assertThat(d2.created()).isFalse();
        assertThat(d2.jobId()).isEqualTo(d1.jobId());
        assertThat(count("SELECT count(*) FROM outbox_job")).isEqualTo(2);
        assertThat(count("SELECT count(*) FROM outbox_tenant_idempotency_key")).isOne();
        assertThat(count("SELECT count(*) FROM outbox_idempotency_key")).isOne();
    }

    @Test
    void aTenantJobsStableKeyNamesItsTenant() throws Exception {
        Outbox outbox = producer().outbox();
        enqueue(outbox, keyed("tenant-a", "order-1"));
        try (Connection c = dataSource.getConnection()) {
            List<ClaimedJob> claimed =
                    new ClaimStore(JsonCodec.jackson()).claim(c, "default", 10, "w", Duration.ofMinutes(1));
            assertThat(claimed).singleElement().satisfies(j -> {
                assertThat(j.job().tenant()).contains("tenant-a");
                assertThat(j.job().stableKey()).isEqualTo("tenant-a/order-1");
            });
        }
    }

    /**
     * The resolver's tenant is applied to a request without one; a request naming another tenant than
     * the current one is refused (code running for one tenant cannot write another's jobs); without a
     * current tenant the request's own is kept.
     */
    @Test
    void theResolversTenantIsAppliedAndAnotherTenantIsRefused() {
        ThreadLocal<String> current = new ThreadLocal<>();
        Postbox postbox =
                track(Postbox.builder(dataSource).tenantResolver(current::get).build());
        current.set("acme");
        try {
            long resolved =
                    enqueue(postbox.outbox(), JobRequest.of("m", Map.of())).jobId();
            long same = enqueue(postbox.outbox(), keyed("acme", "k")).jobId();
            assertThat(count("SELECT count(*) FROM outbox_job WHERE tenant = 'acme' AND id IN (?, ?)", resolved, same))
                    .isEqualTo(2);
            assertThatThrownBy(() -> enqueue(postbox.outbox(), keyed("globex", "k")))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("has tenant 'globex', but the current tenant")
                    .hasMessageContaining("is 'acme': a job may not be enqueued for another tenant");
            assertThat(count("SELECT count(*) FROM outbox_job WHERE tenant = 'globex'"))
                    .isZero();
        } finally {
            current.remove();
        }
        // No current tenant (a system thread): the request's tenant as it is, none for none.
        enqueue(postbox.outbox(), keyed("globex", "k"));
        enqueue(postbox.outbox(), JobRequest.of("m", Map.of()));
        assertThat(count("SELECT count(*) FROM outbox_job WHERE tenant = 'globex'"))
                .isOne();
        assertThat(count("SELECT count(*) FROM outbox_job WHERE tenant IS NULL"))
                .isOne();
    }

    @Test
    void aBadTenantIdIsRefusedWithTheRule() {
        assertThatThrownBy(() -> JobRequest.builder("m").tenant("a b"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("tenant 'a b' is not a valid tenant id")
                .hasMessageContaining("letters, digits");
        assertThatThrownBy(() -> JobRequest.builder("m").tenant(""))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("leave it null for the default tenant");
    }

    @Test
    void orderingKeysArePerTenant() {
        Outbox outbox = producer().outbox();
        for (String tenant : List.of("tenant-a", "tenant-b")) {
            for (int i = 0; i < 2; i++) {
                enqueue(
                        outbox,
                        JobRequest.builder("m")
                                .payload(Map.of("i", i))
                                .tenant(tenant)
                                .orderingKey("customer-1")
                                .build());
            }
        }
        // One claim: each tenant's head of the key, not its second job.
        try (Connection c = dataSource.getConnection()) {
            List<ClaimedJob> claimed =
                    new ClaimStore(JsonCodec.jackson()).claim(c, "default", 10, "w", Duration.ofMinutes(1));
            assertThat(claimed).hasSize(2);
            assertThat(claimed)
                    .extracting(j -> j.job().tenant().orElseThrow())
                    .containsExactlyInAnyOrder("tenant-a", "tenant-b");
            assertThat(claimed).extracting(j -> j.job().payloadJson()).allMatch(p -> p.contains("0"));
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void oneClaimGivesEveryTenantWithWorkAShareWhateverTheOthersBacklog() throws Exception {
        enqueueMany("flood", 5_000);
        enqueueMany("quiet", 3);

        try (Connection c = dataSource.getConnection()) {
            List<ClaimedJob> claimed =
                    new ClaimStore(JsonCodec.jackson()).claim(c, "default", 20, "w", Duration.ofMinutes(1));
            Map<String, Long> perTenant = new java.util.TreeMap<>();
            claimed.forEach(j -> perTenant.merge(j.job().tenant().orElseThrow(), 1L, Long::sum));
            assertThat(perTenant).containsEntry("quiet", 3L);
            assertThat(perTenant.get("flood")).isBetween(1L, 17L);
        }
    }

    @Test
    void aPausedTenantWaitsWhileOthersRun() {
        enqueueMany("paused", 5);
        enqueueMany("active", 5);
        Postbox postbox =
                track(Postbox.builder(dataSource).handler("m", job -> {}).build());
        postbox.admin().forTenant("paused").pause();

        assertThat(postbox.runDueJobs()).isEqualTo(5);
        assertThat(count("SELECT count(*) FROM outbox_job WHERE tenant = 'paused' AND state = 'pending'"))
                .isEqualTo(5);
        assertThat(postbox.admin().forTenant("paused").stats()).satisfies(s -> {
            assertThat(s.paused()).isTrue();
            assertThat(s.due()).isEqualTo(5);
        });

        postbox.admin().forTenant("paused").resume();
        assertThat(postbox.runDueJobs()).isEqualTo(5);
    }

    /** Handlers of tenant "capped" block until released; others count and return. */
    private final class Blocking implements JobHandler {
        final CountDownLatch release = new CountDownLatch(1);
        final AtomicInteger cappedRunning = new AtomicInteger();
        final AtomicInteger cappedMax = new AtomicInteger();
        final Map<String, AtomicInteger> done = new ConcurrentHashMap<>();

        @Override
        public void handle(Job job) throws Exception {
            String tenant = job.tenant().orElse("");
            if (tenant.equals("capped")) {
                cappedMax.accumulateAndGet(cappedRunning.incrementAndGet(), Math::max);
                try {
                    release.await(60, TimeUnit.SECONDS);
                } finally {
                    cappedRunning.decrementAndGet();
                }
            }
            done.computeIfAbsent(tenant, t -> new AtomicInteger()).incrementAndGet();
        }

        int done(String tenant) {
            return done.getOrDefault(tenant, new AtomicInteger()).get();
        }
    }

    @Test
    void aTenantOverItsProcessCapWaitsWithoutHoldingAWorkerAndOthersKeepFlowing() {
        enqueueMany("capped", 30);
        enqueueMany("other", 200);
        Blocking handler = new Blocking();
        track(Postbox.builder(dataSource)
                        .handler("m", handler)
                        .config(fastConfig()
                                .concurrency(4)
                                .tenantConcurrency("capped", 2)
                                .build())
                        .build())
                .start();

        // Two workers are stuck in the capped tenant's jobs; the other two run everything else.
        await().atMost(Duration.ofSeconds(60)).until(() -> handler.done("other") == 200);
        assertThat(handler.cappedMax.get()).isEqualTo(2);
        assertThat(count("SELECT count(*) FROM outbox_job WHERE tenant = 'capped' AND state = 'running'"))
                .as("claimed jobs of the capped tenant: its cap, none held in a buffer")
                .isEqualTo(2);

        handler.release.countDown();
        await().atMost(Duration.ofSeconds(60)).until(() -> handler.done("capped") == 30);
        assertThat(handler.cappedMax.get()).isEqualTo(2);
    }

    @Test
    void aClusterWideTenantCapHoldsAcrossEngines() {
        enqueueMany("capped", 30);
        enqueueMany("other", 300);
        producer().admin().forTenant("capped").setMaxRunning(3);
        Blocking handler = new Blocking();
        for (int i = 0; i < 3; i++) {
            track(Postbox.builder(dataSource)
                            .handler("m", handler)
                            .config(fastConfig().concurrency(4).build())
                            .build())
                    .start();
        }

        await().atMost(Duration.ofSeconds(60)).until(() -> handler.done("other") == 300);
        assertThat(handler.cappedMax.get()).isEqualTo(3);
        assertThat(count("SELECT count(*) FROM outbox_job WHERE tenant = 'capped' AND state = 'running'"))
                .isEqualTo(3);

        handler.release.countDown();
        await().atMost(Duration.ofSeconds(60)).until(() -> handler.done("capped") == 30);
        assertThat(handler.cappedMax.get()).isEqualTo(3);
    }

    private void deadLetter(String tenant, int n) {
        for (int i = 0; i < n; i++) {
            jdbc.update(
                    "INSERT INTO outbox_dead_letter (id, queue, kind, payload, priority, attempts, max_attempts,"
                            + " last_error, created_at, tenant) VALUES (nextval('outbox_job_id_seq'), 'default', 'm', '{}', 0, 8,"
                            + " 8, 'boom', now(), ?)",
                    tenant);
        }
    }

    @Test
    void adminWritesForOneTenantNeverTouchAnothersRows() {
        deadLetter("tenant-a", 3);
        deadLetter("tenant-b", 4);
        deadLetter(null, 2);
        PostboxAdmin admin = producer().admin();
        long bJob = jdbc.queryForObject("SELECT min(id) FROM outbox_dead_letter WHERE tenant = 'tenant-b'", Long.class);

        // Tenant A cannot replay B's dead letter by id, nor see, count, replay or purge B's by filter.
        assertThat(admin.forTenant("tenant-a").replay(bJob)).isFalse();
        assertThat(admin.forTenant("tenant-a").deadLetters(DeadLetterFilter.all(), 100))
                .hasSize(3);
        assertThat(admin.forTenant("tenant-a")
                        .deadLetterCount(DeadLetterFilter.all().ids(List.of(bJob))))
                .isZero();
        assertThat(admin.forTenant("tenant-a").replay(DeadLetterFilter.all())).isEqualTo(3);
        assertThat(count("SELECT count(*) FROM outbox_dead_letter WHERE tenant = 'tenant-b'"))
                .isEqualTo(4);
        assertThat(count("SELECT count(*) FROM outbox_job WHERE tenant = 'tenant-a'"))
                .isEqualTo(3);
        assertThat(count("SELECT count(*) FROM outbox_job WHERE tenant IS DISTINCT FROM 'tenant-a'"))
                .isZero();

        // Tenant A cannot cancel B's waiting job either.
        long waitingOfB = enqueue(producer().outbox(), keyed("tenant-b", "x")).jobId();
        assertThat(admin.forTenant("tenant-a").cancel(waitingOfB)).isFalse();
        assertThat(count("SELECT count(*) FROM outbox_job WHERE id = ?", waitingOfB))
                .isOne();

        // Purge of B takes B's only; the default tenant's dead letters stay.
        assertThat(admin.forTenant("tenant-b").purge(DeadLetterFilter.all())).isEqualTo(4);
        assertThat(count("SELECT count(*) FROM outbox_dead_letter WHERE tenant IS NULL"))
                .isEqualTo(2);
        assertThat(admin.forDefaultTenant().replay(DeadLetterFilter.all())).isEqualTo(2);
        assertThat(count("SELECT count(*) FROM outbox_dead_letter")).isZero();
    }

    /**
     * Issue 31 item 8: after a rewind of the id sequence (a restore from backup) two tenants' jobs share
     * an id, one dead and one live. A scoped read returns its own tenant's job, its payload and its
     * attempts only, or nothing; before, it checked ownership in any table and then read by id alone,
     * and tenant B got tenant A's live job and payload.
     */
    @Test
    void aScopedReadAfterASequenceRewindReturnsOnlyItsOwnTenantsJob() {
        long shared = jdbc.queryForObject("SELECT nextval('outbox_job_id_seq')", Long.class);
        jdbc.update(
                "INSERT INTO outbox_dead_letter (id, queue, kind, payload, priority, attempts, max_attempts,"
                        + " last_error, created_at, dead_at, tenant) VALUES (?, 'default', 'm', '{\"of\": \"b\"}', 0, 1, 1,"
                        + " 'error of b', now() - interval '2 hours', now() - interval '1 hour', 'tenant-b')",
                shared);
        jdbc.update(
                "INSERT INTO outbox_attempt (job_id, attempt, outcome, error, finished_at)"
                        + " VALUES (?, 1, 'dead', 'attempt of b', now() - interval '90 minutes')",
                shared);
        jdbc.execute("ALTER SEQUENCE outbox_job_id_seq RESTART WITH " + shared);
        long ofA = enqueue(
                        producer().outbox(),
                        JobRequest.builder("m")
                                .payload(Map.of("of", "a"))
                                .tenant("tenant-a")
                                .build())
                .jobId();
        assertThat(ofA).isEqualTo(shared);
        jdbc.update(
                "INSERT INTO outbox_attempt (job_id, attempt, outcome, error) VALUES (?, 1, 'retry', 'attempt of a')",
                shared);
        PostboxAdmin admin = producer().admin();

        assertThat(admin.forTenant("tenant-b").job(shared)).hasValueSatisfying(b -> {
            assertThat(b.state()).isEqualTo("dead");
            assertThat(b.payloadJson()).contains("\"b\"");
            assertThat(b.lastError()).isEqualTo("error of b");
            assertThat(b.history()).extracting(JobDetails.Attempt::error).containsExactly("attempt of b");
        });
        assertThat(admin.forTenant("tenant-a").job(shared)).hasValueSatisfying(a -> {
            assertThat(a.state()).isEqualTo("pending");
            assertThat(a.payloadJson()).contains("\"a\"");
            assertThat(a.history()).extracting(JobDetails.Attempt::error).containsExactly("attempt of a");
        });
        assertThat(admin.forTenant("tenant-c").job(shared)).isEmpty();
        assertThat(admin.forDefaultTenant().job(shared)).isEmpty();
        // The unscoped read shows one job, the newest, with its own payload and attempts.
        assertThat(admin.job(shared)).hasValueSatisfying(j -> {
            assertThat(j.payloadJson()).contains("\"a\"");
            assertThat(j.history()).extracting(JobDetails.Attempt::error).containsExactly("attempt of a");
        });
    }

    @Test
    void tenantStatisticsListTheWorstTenantFirst() {
        jdbc.update(
                "INSERT INTO outbox_job (queue, kind, payload, tenant, run_at)"
                        + " VALUES ('default', 'm', '{}', 'late', now() - interval '1 minute'),"
                        + " ('default', 'm', '{}', 'fresh', now()), ('default', 'm', '{}', NULL, now() - interval '5 seconds')");

        List<TenantStats> stats = producer().admin().tenants(2);

        assertThat(stats).extracting(TenantStats::tenant).containsExactly("late", null);
        assertThat(stats.get(0).oldestDueAge()).isGreaterThanOrEqualTo(Duration.ofSeconds(59));
    }
}
