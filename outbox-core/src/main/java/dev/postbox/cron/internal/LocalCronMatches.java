package dev.postbox.cron.internal;

import com.cronutils.model.Cron;
import com.cronutils.model.time.ExecutionTime;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.Optional;

/**
 * The wall-clock date-times that match a cron expression, with no time zone involved.
 *
 * <p>cron-utils is asked in UTC, a zone without gaps or overlaps, so it enumerates every matching
 * local date-time exactly once; mapping those to instants in the schedule's real zone, with the DST
 * rules, is {@link WallClock}'s job. Inputs are truncated to whole seconds (cron-utils otherwise
 * carries the fraction into its result).
 */
public final class LocalCronMatches {

    private final ExecutionTime executionTime;

    public LocalCronMatches(Cron cron) {
        this.executionTime = ExecutionTime.forCron(cron);
    }

    /** The first matching local date-time strictly after {@code local}, if any. */
    public Optional<LocalDateTime> firstAfter(LocalDateTime local) {
        return executionTime
                .nextExecution(local.truncatedTo(ChronoUnit.SECONDS).atZone(ZoneOffset.UTC))
                .map(z -> z.toLocalDateTime());
    }

    /** The last matching local date-time strictly before {@code local}, if any. */
    public Optional<LocalDateTime> lastBefore(LocalDateTime local) {
        LocalDateTime start = local.truncatedTo(ChronoUnit.SECONDS);
        if (!start.equals(local)) {
            start = start.plusSeconds(1);
        }
        return executionTime.lastExecution(start.atZone(ZoneOffset.UTC)).map(z -> z.toLocalDateTime());
    }
}
