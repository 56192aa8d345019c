package dev.postbox.http.webhook;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The line of a cluster-wide bucket is taken as the waiting deliveries need it. Three processes each
 * with one delivery and no token (a tenant's limit of 4/s, deliveries spread over the processes) take
 * three consecutive slots of the shared line, not a block of {@code leaseChunk} slots each: blocks
 * of five left twelve of fifteen slots unused, the line ran 3 s ahead of the deliveries, and a
 * tenant's deliveries came back at about half its rate (2.2/s of 4/s in {@link TenantWebhookTest}).
 */
class PermitPoolLineTest {

    private static final String BUCKET = TenantRates.BUCKET_PREFIX + "acme";
    /**
     * One token a second (the scenario's 4/s scaled down): the test's statements must all run before
     * the bucket's next token, or a process finds one and takes no slot (at 4/s, 250 ms, a busy machine
     * failed it).
     */
    private static final double RATE = 1;

    @Test
    void eachProcessTakesOnlyTheSlotsItsWaitingDeliveriesNeed() throws Exception {
        try (Harness h = new Harness()) {
            RateLimitStore store = new RateLimitStore(
                    h.ds,
                    HttpDeliveryModule.DEFAULT_MIN_RATE_FACTOR,
                    1e9 / HttpDeliveryModule.DEFAULT_RATE_RECOVERY.toNanos());
            store.configure(BUCKET, RATE, 1);
            assertThat(store.lease(BUCKET, 1).granted())
                    .as("the bucket's only token")
                    .isOne();

            List<Duration> snoozes = new ArrayList<>();
            for (int process = 0; process < 3; process++) {
                PermitPool pool = new PermitPool(BUCKET, store, 5);
                PermitPool.Grant grant = pool.acquire(Duration.ZERO);
                assertThat(grant.snooze())
                        .as("no token: a snooze to a slot of the line")
                        .isNotNull();
                snoozes.add(grant.snooze());
            }
            RateLimitStore.Slots next = store.reserve(BUCKET, 1, Duration.ZERO);

            // Next token within one slot, then slots one apart: the three take the first three, and
            // the next free slot is about four slots away (with blocks of five each: sixteen).
            long slot = (long) (1000 / RATE);
            assertThat(next.first().toMillis()).as("the line's next free slot").isLessThanOrEqualTo(4 * slot + 250);
            assertThat(snoozes)
                    .as("each delivery's snooze: until its slot")
                    .allSatisfy(d -> assertThat(d.toMillis()).isLessThanOrEqualTo(4 * slot + 250));
        }
    }
}
