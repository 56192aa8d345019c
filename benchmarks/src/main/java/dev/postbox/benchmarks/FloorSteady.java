package dev.postbox.benchmarks;

import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Scenario floor-steady: the knee search of {@link Knee} with the floor instead of Postbox. The same
 * producer JVM commits one order row plus one bare row in a minimal queue table ({@link FloorQueue})
 * at each rate, and one consumer JVM ({@link FloorConsumerChild}: LISTEN/NOTIFY wake-up, {@code FOR
 * UPDATE SKIP LOCKED} claim, delete) takes them; commit-to-start latency is measured as for Postbox.
 * Its knee is the yardstick of Postbox's knee when both run in one invocation.
 */
final class FloorSteady {

    private static final Logger log = LoggerFactory.getLogger(FloorSteady.class);
    static final String NAME = "floor-steady";

    private FloorSteady() {}

    static Map<String, Object> run(Env env, Knee.Settings settings) throws Exception {
        long t0 = System.nanoTime();
        Knee.Search search = Knee.search(settings, rate -> SteadyRun.runFloor(rate, settings.seconds()));
        env.floorSteadyKnee(search.knee() == null ? 0 : search.knee());
        Map<String, Object> r = Knee.result(env, NAME, settings, search, t0);
        r.put(
                "consumer",
                "one JVM, one connection: LISTEN " + FloorQueue.CHANNEL + ", then `" + FloorQueue.CLAIM + "` (batch "
                        + FloorConsumerChild.BATCH + "), `" + FloorQueue.DELETE + "`, COMMIT");
        // A tail near the fallback poll would mean missed wake-ups: the result keeps it to compare.
        r.put("consumerPollMs", FloorConsumerChild.POLL_MS);
        r.put(
                "producers",
                "the steady state's producer JVM; one order row plus `INSERT INTO " + FloorQueue.TABLE
                        + "`, NOTIFY coalesced per " + FloorQueue.NOTIFY_INTERVAL_MS + " ms from its own connection");
        r.put(
                "notes",
                "floor knee (highest rate with p99 ≤ " + (int) SteadyRun.KNEE_P99_MS + " ms and ≥ "
                        + Math.round(SteadyRun.REACHED_SHARE * 100) + " % reached): "
                        + (search.knee() == null ? "none of " + settings.rates() : search.knee() + "/s"));
        log.info("floor-steady: {}", r.get("notes"));
        return r;
    }
}
