package dev.postbox.benchmarks;

import dev.postbox.JsonCodec;
import dev.postbox.internal.ClaimStore;
import java.sql.Connection;
import java.time.Duration;
import javax.sql.DataSource;
import org.HdrHistogram.Histogram;

/**
 * The engine's claim statement ({@link ClaimStore#claim}) timed from a client: {@code claims} claims
 * of {@code batch} after {@code warmup} untimed ones, each rolled back so the pending rows stay.
 */
final class ClaimTiming {

    private ClaimTiming() {}

    static Histogram measure(DataSource ds, int claims, int warmup, int batch) throws Exception {
        ClaimStore store = new ClaimStore(JsonCodec.jackson());
        Histogram micros = new Histogram(60_000_000L, 3);
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            for (int i = 0; i < claims + warmup; i++) {
                long begin = System.nanoTime();
                int n = store.claim(c, "default", batch, "bench", Duration.ofSeconds(30))
                        .size();
                long took = (System.nanoTime() - begin) / 1000;
                c.rollback();
                if (n != batch) {
                    throw new IllegalStateException("claim of " + batch + " returned " + n);
                }
                if (i >= warmup) {
                    micros.recordValue(took);
                }
            }
        }
        return micros;
    }
}
