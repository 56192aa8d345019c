package dev.postbox.cron;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Decides which fires a materialiser creates, as a pure function of the last instant already
 * covered and the current (database) time. Immutable and thread-safe.
 *
 * <p>Given {@code after} (the last fire already materialised, or the creation time of the schedule)
 * and {@code now}, the due fires are those in {@code (after, now]}. A due fire older than {@code now
 * - misfireThreshold} is <em>missed</em>; a younger one is merely <em>late</em> (a materialiser
 * polls periodically and nodes' clocks differ) and is always materialised. Missed fires follow the
 * {@link MissedFirePolicy}:
 *
 * <ul>
 *   <li>{@link MissedFirePolicy#ONE}: the missed fires are replaced by one fire at the latest missed
 *       instant (so its fire key is that of a real fire);
 *   <li>{@link MissedFirePolicy#ALL}: all are materialised;
 *   <li>{@link MissedFirePolicy#NONE}: none is.
 * </ul>
 *
 * Example: an hourly schedule whose nodes were down from 00:30 to 10:45 (fires 01:00 to 10:00
 * missed, threshold one minute) creates one job (10:00) under ONE, ten jobs under ALL and none under
 * NONE; in each case the next fire stored is 11:00.
 *
 * <p>At most {@link #maxFiresPerPass()} fires are planned per pass. When the cap is reached, the
 * stored next fire is the one after the last planned fire, which is already due, so the next pass
 * continues where this one stopped: no fire is lost, and a long catch-up cannot produce one huge
 * transaction.
 */
public final class MissedFirePlanner {

    /** Default cap on the fires planned in one pass for one schedule. */
    public static final int DEFAULT_MAX_FIRES_PER_PASS = 100;

    private final FireCalculator calculator;
    private final MissedFirePolicy policy;
    private final Duration misfireThreshold;
    private final int maxFiresPerPass;

    /**
     * A planner.
     *
     * @param misfireThreshold how late a fire may be before it counts as missed; not negative
     * @param maxFiresPerPass the most fires planned in one pass; at least 1
     */
    public MissedFirePlanner(
            FireCalculator calculator, MissedFirePolicy policy, Duration misfireThreshold, int maxFiresPerPass) {
        if (calculator == null) {
            throw new IllegalArgumentException("calculator may not be null");
        }
        if (policy == null) {
            throw new IllegalArgumentException("policy may not be null");
        }
        if (misfireThreshold == null || misfireThreshold.isNegative()) {
            throw new IllegalArgumentException("misfireThreshold may not be null or negative, was " + misfireThreshold);
        }
        if (maxFiresPerPass < 1) {
            throw new IllegalArgumentException("maxFiresPerPass must be at least 1, was " + maxFiresPerPass);
        }
        this.calculator = calculator;
        this.policy = policy;
        this.misfireThreshold = misfireThreshold;
        this.maxFiresPerPass = maxFiresPerPass;
    }

    /** A planner for a definition's calculator, missed-fire policy and threshold. */
    public static MissedFirePlanner forDefinition(ScheduleDefinition definition, int maxFiresPerPass) {
        return new MissedFirePlanner(
                definition.fireCalculator(),
                definition.missedFirePolicy(),
                definition.misfireThreshold(),
                maxFiresPerPass);
    }

    /** The most fires planned in one pass. */
    public int maxFiresPerPass() {
        return maxFiresPerPass;
    }

    /**
     * Plans the fires in {@code (after, now]}.
     *
     * @param after the last instant already covered: the last materialised fire, or the creation
     *     time of the schedule (exclusive)
     * @param now the current time, read from the database clock
     */
    public FirePlan plan(Instant after, Instant now) {
        Optional<Instant> first = calculator.nextFireAfter(after);
        if (first.isEmpty() || first.get().isAfter(now)) {
            return new FirePlan(List.of(), first.orElse(null), false);
        }
        Instant missedBefore = now.minus(misfireThreshold);
        boolean anyMissed = first.get().isBefore(missedBefore);
        List<Instant> fires = new ArrayList<>();
        Instant onTimeAfter = latest(after, missedBefore.minusNanos(1));
        switch (policy) {
            case ALL:
                onTimeAfter = after;
                break;
            case ONE:
                if (anyMissed) {
                    fires.add(calculator
                            .latestFireAtOrBefore(missedBefore.minusNanos(1))
                            .orElseThrow());
                }
                break;
            case NONE:
                break;
            default:
                throw new IllegalStateException("unknown policy " + policy);
        }
        fires.addAll(calculator.firesBetween(onTimeAfter, now, maxFiresPerPass - fires.size()));
        Instant coveredUntil = fires.size() == maxFiresPerPass ? fires.get(fires.size() - 1) : now;
        boolean dropped = anyMissed && policy != MissedFirePolicy.ALL;
        return new FirePlan(fires, calculator.nextFireAfter(coveredUntil).orElse(null), dropped);
    }

    /**
     * Plans the fires of a schedule whose stored next fire is {@code nextFireAt}: the same as {@link
     * #plan(Instant, Instant)} with everything before {@code nextFireAt} covered.
     */
    public FirePlan planFromStoredNextFire(Instant nextFireAt, Instant now) {
        return plan(nextFireAt.minusNanos(1), now);
    }

    private static Instant latest(Instant a, Instant b) {
        return a.isAfter(b) ? a : b;
    }
}
