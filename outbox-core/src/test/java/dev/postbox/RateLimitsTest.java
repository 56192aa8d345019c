package dev.postbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The shared token buckets a module gets at install: a bucket grants its burst, lines up what it
 * refuses one slot per permit, is one row for every engine, follows a changed rate, and comes back
 * when its row was deleted.
 */
class RateLimitsTest extends DatabaseTest {

    /** The rate limits of a freshly built engine, as a module receives them. */
    private RateLimits rateLimits() {
        AtomicReference<RateLimits> installed = new AtomicReference<>();
        track(Postbox.builder(dataSource)
                .config(fastConfig().build())
                .module(new PostboxModule() {
                    @Override
                    public List<HandlerRegistration> handlers() {
                        return List.of();
                    }

                    @Override
                    public void install(Context context) {
                        installed.set(context.rateLimits());
                    }
                })
                .build());
        return installed.get();
    }

    @Test
    void aNewBucketGrantsItsBurstAndLinesUpTheRestOneSlotPerPermit() {
        RateLimits.Bucket bucket = rateLimits().bucket("test:burst", 10, 5);

        RateLimits.Permits first = bucket.take(8);
        assertThat(first.granted()).isEqualTo(5);
        assertThat(first.spacing()).isEqualTo(Duration.ofMillis(100));
        assertThat(first.firstWait())
                .as("until the bucket holds a token again: 1/10 s")
                .isBetween(Duration.ofMillis(50), Duration.ofMillis(110));
        assertThat(first.waitOf(2)).isEqualTo(first.firstWait().plus(Duration.ofMillis(200)));

        RateLimits.Permits next = bucket.take(1);
        assertThat(next.granted()).isZero();
        assertThat(next.firstWait())
                .as("behind the three slots already handed out")
                .isGreaterThan(first.firstWait().plus(Duration.ofMillis(250)));
    }

    @Test
    void twoEnginesDrawFromOneBucket() {
        RateLimits.Bucket one = rateLimits().bucket("test:shared", 5, 5);
        RateLimits.Bucket two = rateLimits().bucket("test:shared", 5, 5);

        long t0 = System.nanoTime();
        assertThat(one.take(5).granted()).isEqualTo(5);
        int second = two.take(5).granted();
        double elapsed = (System.nanoTime() - t0) / 1e9;

        assertThat(second)
                .as("only what refilled in %.3f s, not a burst of its own", elapsed)
                .isLessThanOrEqualTo((int) Math.ceil(5 * elapsed))
                .isLessThan(5);
        assertThat(count("SELECT count(*) FROM outbox_rate_bucket WHERE endpoint = 'test:shared'"))
                .isEqualTo(1);
    }

    @Test
    void aChangedRateReplacesTheOldOneForEveryProcess() {
        RateLimits limits = rateLimits();
        limits.bucket("test:changed", 10, 10).take(1);
        limits.bucket("test:changed", 2, 2).take(1);

        assertThat(jdbc.queryForMap("SELECT rate_per_second, burst, tokens FROM outbox_rate_bucket"
                        + " WHERE endpoint = 'test:changed'"))
                .containsEntry("rate_per_second", 2.0)
                .containsEntry("burst", 2);
        assertThat(count("SELECT count(*) FROM outbox_rate_bucket WHERE endpoint = 'test:changed' AND tokens < 2"))
                .as("tokens above the new burst dropped, one taken")
                .isEqualTo(1);
    }

    @Test
    void aDeletedBucketIsPutBackFullOnItsNextTake() {
        RateLimits.Bucket bucket = rateLimits().bucket("test:deleted", 3, 3);
        assertThat(bucket.take(3).granted()).isEqualTo(3);
        jdbc.update("DELETE FROM outbox_rate_bucket WHERE endpoint = 'test:deleted'");

        assertThat(bucket.take(3).granted()).isEqualTo(3);
    }

    @Test
    void badArgumentsAreRefusedWithTheFix() {
        RateLimits limits = rateLimits();
        assertThatThrownBy(() -> limits.bucket("orders", 10, 10))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("rate limit key 'orders' is not valid")
                .hasMessageContaining("e.g. 'kafka:orders'");
        assertThatThrownBy(() -> limits.bucket("test:x", 0, 10))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("perSecond of rate limit 'test:x' must be positive");
        assertThatThrownBy(() -> limits.bucket("test:x", 10, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("burst");
        assertThatThrownBy(() -> limits.bucket("test:x", 10, 10).take(0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("wanted");
    }
}
