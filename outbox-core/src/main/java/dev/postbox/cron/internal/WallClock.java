package dev.postbox.cron.internal;

import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.zone.ZoneOffsetTransition;
import java.time.zone.ZoneRules;
import java.util.List;
import java.util.Optional;

/**
 * Maps wall-clock date-times of one zone to instants, with Postbox's DST rules:
 *
 * <ul>
 *   <li>a local time that exists once maps to its instant;
 *   <li>a local time that exists twice (fall-back overlap) maps to the <em>earlier</em> instant only;
 *   <li>a local time that does not exist (spring-forward gap) maps to the transition instant, the
 *       first instant after the gap, when {@code shiftGaps} is set, and to nothing otherwise.
 * </ul>
 *
 * The mapping never decreases: a later local time never maps to an earlier instant. That is what
 * lets {@link dev.postbox.cron.FireCalculator} walk local matches in order and stop at the first
 * one past a given instant.
 */
public final class WallClock {

    private final ZoneRules rules;
    private final boolean shiftGaps;

    public WallClock(ZoneId zone, boolean shiftGaps) {
        this.rules = zone.getRules();
        this.shiftGaps = shiftGaps;
    }

    /** The instant at which a fire for this wall-clock time happens, if it happens. */
    public Optional<Instant> toInstant(LocalDateTime local) {
        List<ZoneOffset> offsets = rules.getValidOffsets(local);
        if (offsets.size() == 1) {
            return Optional.of(local.toInstant(offsets.get(0)));
        }
        ZoneOffsetTransition transition = rules.getTransition(local);
        if (offsets.size() == 2) {
            return Optional.of(local.toInstant(transition.getOffsetBefore()));
        }
        return shiftGaps ? Optional.of(transition.getInstant()) : Optional.empty();
    }

    /**
     * The local time from which the matches that map strictly after {@code instant} begin, minus
     * nothing: every local match strictly after the returned value can map after {@code instant},
     * and none at or before it can. Inside the second pass through an overlap, the local times up to
     * the end of the overlap map to the first pass, before {@code instant}, so they are skipped.
     */
    public LocalDateTime searchStartAfter(Instant instant) {
        ZoneOffset offset = rules.getOffset(instant);
        LocalDateTime local = LocalDateTime.ofEpochSecond(instant.getEpochSecond(), instant.getNano(), offset);
        ZoneOffsetTransition transition = rules.getTransition(local);
        if (transition != null && transition.isOverlap() && offset.equals(transition.getOffsetAfter())) {
            LocalDateTime endOfOverlap = transition.getDateTimeBefore().minusNanos(1);
            return endOfOverlap.isAfter(local) ? endOfOverlap : local;
        }
        return local;
    }

    /**
     * The exclusive upper local bound of matches that may map at or before {@code instant}: every
     * local match strictly before the returned value is a candidate, none at or after it is.
     */
    public LocalDateTime searchEndAtOrBefore(Instant instant) {
        ZoneOffset offset = rules.getOffset(instant);
        LocalDateTime local = LocalDateTime.ofEpochSecond(instant.getEpochSecond(), instant.getNano(), offset);
        ZoneOffsetTransition transition = rules.getTransition(local);
        if (transition != null && transition.isOverlap() && offset.equals(transition.getOffsetAfter())) {
            return transition.getDateTimeBefore();
        }
        return local.plusNanos(1);
    }
}
