package dev.postbox.cron;

import java.time.Instant;
import java.time.temporal.ChronoUnit;

/**
 * The deterministic identity of one fire: {@code <schedule name>@<fire instant in ISO-8601 UTC>},
 * for example {@code nightly-report@2027-03-28T01:00:00Z}.
 *
 * <p>It is the idempotency key of the job a fire creates. Every materialiser, whatever its clock,
 * computes the same fire instants from the same definition, hence the same keys; the unique
 * idempotency key collapses concurrent materialisations of one fire into one job. The instant is
 * always written in UTC with whole seconds (cron has no sub-second fields), so the key does not
 * depend on the schedule's zone, the JVM's zone or the offset in force.
 */
public final class FireKey {

    private FireKey() {}

    /** The fire key of {@code scheduleName} firing at {@code fireInstant}. */
    public static String of(String scheduleName, Instant fireInstant) {
        return scheduleName + "@" + fireInstant.truncatedTo(ChronoUnit.SECONDS);
    }
}
