package dev.postbox.cron;

import dev.postbox.cron.internal.LocalCronMatches;
import dev.postbox.cron.internal.WallClock;
import java.time.Instant;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Computes the fire instants of a {@link CronSchedule}: a pure function of the instants it is
 * given, never of a clock. Immutable and thread-safe.
 *
 * <h2>The rule</h2>
 *
 * Fires are <em>wall-clock matches</em>: every local date-time in the schedule's zone that matches
 * the expression is one fire, at the instant that local time denotes. Two situations need a rule:
 *
 * <ul>
 *   <li><b>Gap (spring forward).</b> The local time does not exist. With {@link DstGapPolicy#SHIFT}
 *       (default) the fire happens at the first instant after the gap; with {@link
 *       DstGapPolicy#SKIP} it does not happen. Europe/Berlin, 2027-03-28, {@code 30 2 * * *}: SHIFT
 *       fires at 03:00 CEST (01:00Z), SKIP has no fire that day. Matches that land on the same
 *       instant are one fire: an hourly schedule's 02:00 shifts to 03:00, where 03:00 also fires, so
 *       the day has 23 fires under either policy.
 *   <li><b>Overlap (fall back).</b> The local time exists twice. It fires <em>once</em>, at the
 *       earlier instant. America/New_York, 2027-11-07, {@code 30 1 * * *} fires at 01:30 EDT (05:30Z)
 *       and not at 01:30 EST (06:30Z).
 * </ul>
 *
 * <p><b>Consequence for hourly and finer schedules.</b> The repeated hour fires only in its first
 * pass: {@code 0 * * * *} in New York on 2027-11-07 fires 24 times on a 25-hour day, with two real
 * hours between 01:00 EDT (05:00Z) and 02:00 EST (07:00Z); an every-minute schedule is silent for
 * the 60 minutes of the second pass. On spring-forward days such schedules fire 23 times. A schedule
 * that must fire in every real hour (an interval rather than a time of day) should use zone {@code
 * UTC}, which has no DST.
 *
 * <p>Fire instants have whole seconds and never decrease as the wall clock advances.
 */
public final class FireCalculator {

    private final CronSchedule schedule;
    private final DstGapPolicy gapPolicy;
    private final LocalCronMatches matches;
    private final WallClock wallClock;

    /** A calculator for {@code schedule} that treats DST gaps according to {@code gapPolicy}. */
    public FireCalculator(CronSchedule schedule, DstGapPolicy gapPolicy) {
        if (schedule == null) {
            throw new IllegalArgumentException("schedule may not be null");
        }
        if (gapPolicy == null) {
            throw new IllegalArgumentException("gapPolicy may not be null");
        }
        this.schedule = schedule;
        this.gapPolicy = gapPolicy;
        this.matches = schedule.matches();
        this.wallClock = new WallClock(schedule.zone(), gapPolicy == DstGapPolicy.SHIFT);
    }

    /** The schedule whose fires this calculator computes. */
    public CronSchedule schedule() {
        return schedule;
    }

    /** How this calculator treats fires in a DST gap. */
    public DstGapPolicy gapPolicy() {
        return gapPolicy;
    }

    /** The first fire strictly after {@code after}, or empty if the schedule never fires again. */
    public Optional<Instant> nextFireAfter(Instant after) {
        LocalDateTime cursor = wallClock.searchStartAfter(after);
        while (true) {
            Optional<LocalDateTime> match = matches.firstAfter(cursor);
            if (match.isEmpty()) {
                return Optional.empty();
            }
            Optional<Instant> fire = wallClock.toInstant(match.get());
            if (fire.isPresent() && fire.get().isAfter(after)) {
                return fire;
            }
            cursor = match.get();
        }
    }

    /**
     * The latest fire at or before {@code atOrBefore}, or empty if there is none. Used to pick the
     * single catch-up fire of {@link MissedFirePolicy#ONE} without walking every missed fire.
     */
    public Optional<Instant> latestFireAtOrBefore(Instant atOrBefore) {
        LocalDateTime cursor = wallClock.searchEndAtOrBefore(atOrBefore);
        while (true) {
            Optional<LocalDateTime> match = matches.lastBefore(cursor);
            if (match.isEmpty()) {
                return Optional.empty();
            }
            Optional<Instant> fire = wallClock.toInstant(match.get());
            if (fire.isPresent() && !fire.get().isAfter(atOrBefore)) {
                return fire;
            }
            cursor = match.get();
        }
    }

    /**
     * The fires in {@code (fromExclusive, toInclusive]}, in order, at most {@code limit} of them
     * (the earliest ones).
     */
    public List<Instant> firesBetween(Instant fromExclusive, Instant toInclusive, int limit) {
        if (limit < 0) {
            throw new IllegalArgumentException("limit may not be negative, was " + limit);
        }
        List<Instant> fires = new ArrayList<>();
        Instant cursor = fromExclusive;
        while (fires.size() < limit) {
            Optional<Instant> next = nextFireAfter(cursor);
            if (next.isEmpty() || next.get().isAfter(toInclusive)) {
                break;
            }
            fires.add(next.get());
            cursor = next.get();
        }
        return List.copyOf(fires);
    }

    @Override
    public String toString() {
        return "FireCalculator[" + schedule + ", gap " + gapPolicy + "]";
    }
}
