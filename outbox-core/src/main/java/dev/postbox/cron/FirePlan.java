package dev.postbox.cron;

import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * What a materialiser does for one schedule in one pass: the fire instants to turn into jobs, in
 * order, and the next fire to store. Immutable.
 *
 * @param fires the fire instants to materialise, ascending; empty when nothing is due
 * @param nextFireAt the next fire to store as the schedule's {@code next_fire_at}; may be at or
 *     before now when a pass was capped ({@link MissedFirePolicy#ALL}); {@code null} when the
 *     schedule never fires again
 * @param missedFiresDropped whether missed fires were dropped or collapsed by the policy
 */
public record FirePlan(List<Instant> fires, @Nullable Instant nextFireAt, boolean missedFiresDropped) {

    /** Copies {@code fires}. */
    public FirePlan {
        fires = List.copyOf(fires);
    }

    /** The next fire to store, empty when the schedule never fires again. */
    public Optional<Instant> next() {
        return Optional.ofNullable(nextFireAt);
    }
}
