package dev.postbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Issue 16: the rescuer applies the retry policy of the job's kind to a charged expired lease, as
 * the runner does to a failed attempt; kinds without a policy of their own get the engine's.
 */
class RescuePolicyTest extends DatabaseTest {

    /** The engine's default: an hour at least before a retried job runs again... */
    private static final RetryPolicy ENGINE = RetryPolicy.custom()
            .base(Duration.ofHours(1))
            .cap(Duration.ofHours(1))
            .build();

    /** ...and the quick kind's own: 50 ms at most, and two attempts. */
    private static final RetryPolicy QUICK = RetryPolicy.custom()
            .base(Duration.ofMillis(50))
            .cap(Duration.ofMillis(50))
            .maxAttempts(2)
            .build();

    /** Enqueues n jobs of the kind and leaves them running under a started, expired lease of a dead worker. */
    private List<Long> expiredStartedLeases(Postbox postbox, String kind, int n) {
        return expiredStartedLeases(postbox, kind, n, 1);
    }

    /** As above, the lease being the job's attempt number {@code attempt}. */
    private List<Long> expiredStartedLeases(Postbox postbox, String kind, int n, int attempt) {
        List<Long> ids = new java.util.ArrayList<>();
        for (int i = 0; i < n; i++) {
            ids.add(enqueueCommitted(postbox.outbox(), JobRequest.of(kind, Map.of("n", i)))
                    .jobId());
        }
        jdbc.update(
                "UPDATE outbox_job SET state = 'running', attempts = ?, lease_owner = 'dead-worker',"
                        + " lease_token = nextval('outbox_lease_token_seq'), lease_until = now() - interval '1 second',"
                        + " lease_started = true, started_at = now() - interval '2 seconds' WHERE kind = ?",
                attempt,
                kind);
        return ids;
    }

    private double waitSeconds(long id) {
        Double s = jdbc.queryForObject(
                "SELECT extract(epoch FROM run_at - now()) FROM outbox_job WHERE id = ? AND state = 'retry'",
                Double.class,
                id);
        return s == null ? Double.NaN : s;
    }

    @Test
    void aRescuedStartedAttemptWaitsTheBackoffOfItsKindsPolicyNotTheEngines() {
        Postbox postbox = track(Postbox.builder(dataSource)
                .config(fastConfig().retryPolicy(ENGINE).build())
                .handler(HandlerRegistration.of("quick", job -> {}).retryPolicy(QUICK))
                .handler("plain", job -> {})
                .build());
        List<Long> quick = expiredStartedLeases(postbox, "quick", 5);
        List<Long> plain = expiredStartedLeases(postbox, "plain", 5);

        int[] rescued = postbox.rescueExpiredLeases();

        assertThat(rescued[0]).as("charged and retried").isEqualTo(10);
        // The engine's policy would wait up to an hour: five draws all under a second have a chance of
        // (1/3600)^5.
        assertThat(quick)
                .as("the quick kind's jobs wait at most its 50 ms cap")
                .allSatisfy(id -> assertThat(waitSeconds(id)).isLessThanOrEqualTo(0.06));
        assertThat(plain.stream().mapToDouble(this::waitSeconds).max().orElseThrow())
                .as("a kind without its own policy takes the engine's (up to an hour)")
                .isGreaterThan(1.0)
                .isLessThanOrEqualTo(3600.0);
    }

    @Test
    void aRescuedStartedAttemptIsDeadLetteredWhenItsKindsBudgetIsSpentNotTheEngines() {
        Postbox postbox = track(Postbox.builder(dataSource)
                .config(fastConfig().retryPolicy(ENGINE).build())
                .handler(HandlerRegistration.of("quick", job -> {}).retryPolicy(QUICK))
                .handler("plain", job -> {})
                .build());
        List<Long> quick = expiredStartedLeases(postbox, "quick", 3, QUICK.maxAttempts());
        List<Long> plain = expiredStartedLeases(postbox, "plain", 3, QUICK.maxAttempts());

        int[] rescued = postbox.rescueExpiredLeases();

        assertThat(rescued[0])
                .as("charged and retried: the plain kind's, with budget left")
                .isEqualTo(3);
        assertThat(rescued[1])
                .as("dead-lettered: the quick kind's, its two attempts spent")
                .isEqualTo(3);
        assertThat(jdbc.queryForList(
                        "SELECT id FROM outbox_dead_letter WHERE kind = 'quick' AND attempts = 2 AND max_attempts = 2"
                                + " AND last_error LIKE 'lease expired on attempt 2 of 2%'",
                        Long.class))
                .containsExactlyInAnyOrderElementsOf(quick);
        assertThat(jdbc.queryForObject("SELECT count(*) FROM outbox_job WHERE kind = 'quick'", Long.class))
                .isZero();
        assertThat(plain)
                .as("the engine's budget of %s attempts leaves the plain kind's jobs retrying", ENGINE.maxAttempts())
                .allSatisfy(id -> assertThat(waitSeconds(id)).isGreaterThan(0.0));
    }
}
