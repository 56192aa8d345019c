package dev.postbox.http.webhook;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * A bucket holds as many tokens as the receiver's bound of {@code rate + burst} requests in any
 * second allows, given that a request is sent up to {@link RateLimitStore#SEND_ALLOWANCE} after its
 * grant: for 4/s burst 2 that is 2 tokens, not 1. A bucket of one token loses what it earns while it
 * is full, so each delivery that came back after its token pushed the next tokens later, and a
 * tenant's limit of 4/s burst 2 delivered about 2.6/s ({@link TenantWebhookTest}).
 */
class RateLimitCapacityTest {

    @Test
    void theCapacityIsTheMostTokensThatKeepTheReceiversBound() {
        assertThat(RateLimitStore.capacity(4, 2)).isEqualTo(2);
        assertThat(RateLimitStore.capacity(50, 10)).as("docs/webhooks.md").isEqualTo(5);
        assertThat(RateLimitStore.capacity(10, 5)).as("docs/webhooks.md").isEqualTo(4);
        assertThat(RateLimitStore.capacity(100, 10)).as("never below one token").isEqualTo(1);
        assertThat(RateLimitStore.capacity(1, 1)).isEqualTo(1);
        assertThat(RateLimitStore.capacity(2.5, 3)).isEqualTo(3);

        double window = 1 + RateLimitStore.SEND_ALLOWANCE.toNanos() / 1e9;
        for (int tenths = 1; tenths <= 2000; tenths++) {
            double rate = tenths / 10.0;
            for (int burst = 1; burst <= 60; burst++) {
                int capacity = RateLimitStore.capacity(rate, burst);
                long bound = (long) Math.floor(rate + burst);
                // The most grants in one second plus the allowance, all sent within that second.
                long mostGranted = (long) Math.floor(capacity + rate * window + 1e-9);
                if (capacity > 1) {
                    assertThat(mostGranted)
                            .as("%s/s burst %s: capacity %s", rate, burst, capacity)
                            .isLessThanOrEqualTo(bound);
                    long oneMore = (long) Math.floor(capacity + 1 + rate * window + 1e-9);
                    assertThat(oneMore)
                            .as("%s/s burst %s: one token more would break the bound", rate, burst)
                            .isGreaterThan(bound);
                }
            }
        }
    }

    @Test
    void aBucketOfFourPerSecondBurstTwoGrantsTwoAtOnce() throws Exception {
        try (Harness h = new Harness()) {
            RateLimitStore store = new RateLimitStore(
                    h.ds,
                    HttpDeliveryModule.DEFAULT_MIN_RATE_FACTOR,
                    1e9 / HttpDeliveryModule.DEFAULT_RATE_RECOVERY.toNanos());
            store.configure("tenant:acme", 4, 2);
            assertThat(store.lease("tenant:acme", 5).granted()).isEqualTo(2);
        }
    }
}
