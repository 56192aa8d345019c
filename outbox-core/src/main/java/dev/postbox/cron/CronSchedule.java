package dev.postbox.cron;

import com.cronutils.model.Cron;
import dev.postbox.cron.internal.CronSyntax;
import dev.postbox.cron.internal.CronSyntaxException;
import dev.postbox.cron.internal.LocalCronMatches;
import java.time.DateTimeException;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.util.Locale;
import java.util.Optional;

/**
 * A parsed, validated cron expression in a time zone. Immutable.
 *
 * <p>Accepted syntax:
 *
 * <ul>
 *   <li>5 fields, Unix cron: {@code minute hour day-of-month month day-of-week}, for example {@code
 *       30 2 * * *}. Weekday 0-7, 0 and 7 = Sunday; when both day fields are restricted, a day
 *       matching either fires (Unix semantics).
 *   <li>6 fields, Spring/Quartz style with seconds first: {@code second minute hour day-of-month
 *       month day-of-week}, for example {@code 0 0/15 * * * ?} or {@code 0 0 9 ? * MON-FRI}. Weekday
 *       numbers follow Spring (0 or 7 = Sunday), not Quartz (1 = Sunday); names avoid the doubt.
 *   <li>Macros: {@code @yearly}, {@code @annually}, {@code @monthly}, {@code @weekly}, {@code
 *       @daily}, {@code @midnight}, {@code @hourly}.
 * </ul>
 *
 * <p>The zone is a region id such as {@code Europe/Berlin} (with DST) or {@code UTC} / a fixed
 * offset (without). Expressions are matched against the wall clock of that zone; how wall-clock
 * matches become instants across DST changes is described in {@link FireCalculator}.
 */
public final class CronSchedule {

    private final String scheduleName;
    private final String expression;
    private final ZoneId zone;
    private final LocalCronMatches matches;

    private CronSchedule(String scheduleName, String expression, ZoneId zone, LocalCronMatches matches) {
        this.scheduleName = scheduleName;
        this.expression = expression;
        this.zone = zone;
        this.matches = matches;
    }

    /**
     * Parses {@code expression} in the zone named {@code zoneId}.
     *
     * @throws InvalidScheduleException naming the schedule, the expression or zone and the problem
     */
    public static CronSchedule parse(String scheduleName, String expression, String zoneId) {
        return parse(scheduleName, expression, zone(scheduleName, zoneId));
    }

    /**
     * Parses {@code expression} in {@code zone}.
     *
     * @throws InvalidScheduleException naming the schedule, the expression and the problem
     */
    public static CronSchedule parse(String scheduleName, String expression, ZoneId zone) {
        if (expression == null) {
            throw new InvalidScheduleException(
                    scheduleName, "Schedule '" + scheduleName + "': cron may not be null. " + CronSyntax.USAGE);
        }
        if (zone == null) {
            throw new InvalidScheduleException(scheduleName, "Schedule '" + scheduleName + "': zone may not be null");
        }
        Cron cron;
        try {
            cron = CronSyntax.parse(expression);
        } catch (CronSyntaxException e) {
            throw new InvalidScheduleException(
                    scheduleName,
                    "Schedule '" + scheduleName + "': invalid cron expression '" + expression + "': " + e.getMessage()
                            + ". " + CronSyntax.USAGE,
                    e);
        }
        LocalCronMatches matches = new LocalCronMatches(cron);
        if (neverMatches(matches)) {
            throw new InvalidScheduleException(
                    scheduleName,
                    "Schedule '" + scheduleName + "': cron expression '" + expression
                            + "' never fires (no matching date, for example February 30)");
        }
        return new CronSchedule(scheduleName, expression.trim(), zone, matches);
    }

    private static boolean neverMatches(LocalCronMatches matches) {
        try {
            // Any date pattern recurs within 28 years (and leap days within 8); a fixed origin keeps
            // this check independent of the clock.
            return matches.firstAfter(LocalDateTime.of(2000, 1, 1, 0, 0)).isEmpty();
        } catch (RuntimeException e) {
            return true;
        }
    }

    private static ZoneId zone(String scheduleName, String zoneId) {
        if (zoneId == null || zoneId.isBlank()) {
            throw new InvalidScheduleException(
                    scheduleName,
                    "Schedule '" + scheduleName + "': zone may not be blank; use a region id such as"
                            + " 'Europe/Berlin' or 'UTC'");
        }
        try {
            return ZoneId.of(zoneId.trim());
        } catch (DateTimeException e) {
            String suggestion = suggestZone(zoneId.trim())
                    .map(z -> " Did you mean '" + z + "'?")
                    .orElse("");
            throw new InvalidScheduleException(
                    scheduleName,
                    "Schedule '" + scheduleName + "': unknown time zone '" + zoneId + "'." + suggestion
                            + " Use a region id such as 'Europe/Berlin', 'America/New_York' or 'UTC'.",
                    e);
        }
    }

    private static Optional<String> suggestZone(String zoneId) {
        String wanted = zoneId.toLowerCase(Locale.ROOT).replace(' ', '_');
        return ZoneId.getAvailableZoneIds().stream()
                .filter(id -> id.toLowerCase(Locale.ROOT).equals(wanted))
                .findFirst();
    }

    /** The name of the schedule this expression belongs to (used in messages). */
    public String scheduleName() {
        return scheduleName;
    }

    /** The expression as written (trimmed). */
    public String expression() {
        return expression;
    }

    /** The zone whose wall clock the expression is matched against. */
    public ZoneId zone() {
        return zone;
    }

    LocalCronMatches matches() {
        return matches;
    }

    @Override
    public String toString() {
        return "CronSchedule[" + scheduleName + ": '" + expression + "' in " + zone + "]";
    }
}
