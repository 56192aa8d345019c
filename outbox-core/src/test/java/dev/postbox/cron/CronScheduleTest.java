package dev.postbox.cron;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.time.ZoneId;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class CronScheduleTest {

    private static Instant next(String cron, String zone, String after) {
        return new FireCalculator(CronSchedule.parse("test", cron, zone), DstGapPolicy.SHIFT)
                .nextFireAfter(Instant.parse(after))
                .orElseThrow();
    }

    @Test
    void fiveFieldUnixSyntaxMatchesMinutesInTheZone() {
        assertThat(next("30 2 * * *", "UTC", "2027-06-01T00:00:00Z")).isEqualTo("2027-06-01T02:30:00Z");
        assertThat(next("30 2 * * *", "Europe/Berlin", "2027-06-01T00:00:00Z")).isEqualTo("2027-06-01T00:30:00Z");
        assertThat(next("*/15 * * * *", "UTC", "2027-06-01T00:00:00Z")).isEqualTo("2027-06-01T00:15:00Z");
    }

    @Test
    void unixWeekdaySevenAndZeroAreSundayAndBothDayFieldsAreOred() {
        // 2027-06-06 is a Sunday.
        assertThat(next("0 12 * * 7", "UTC", "2027-06-01T00:00:00Z")).isEqualTo("2027-06-06T12:00:00Z");
        assertThat(next("0 12 * * 0", "UTC", "2027-06-01T00:00:00Z")).isEqualTo("2027-06-06T12:00:00Z");
        // day 15 OR a Sunday: the Sunday 06-06 comes first.
        assertThat(next("0 12 15 * 0", "UTC", "2027-06-01T00:00:00Z")).isEqualTo("2027-06-06T12:00:00Z");
    }

    @Test
    void sixFieldSyntaxHasSecondsFirst() {
        assertThat(next("*/10 * * * * *", "UTC", "2027-06-01T12:00:05Z")).isEqualTo("2027-06-01T12:00:10Z");
        assertThat(next("15 30 9 * * ?", "UTC", "2027-06-01T00:00:00Z")).isEqualTo("2027-06-01T09:30:15Z");
        // 2027-06-05 is a Saturday: the next weekday 09:00 is Monday 06-07.
        assertThat(next("0 0 9 ? * MON-FRI", "UTC", "2027-06-04T10:00:00Z")).isEqualTo("2027-06-07T09:00:00Z");
    }

    @Test
    void sixFieldSyntaxUsesSpringWeekdayNumbers() {
        // Spring: 1 = Monday (Quartz would read it as Sunday). 2027-06-07 is a Monday.
        assertThat(next("0 0 9 * * 1", "UTC", "2027-06-04T10:00:00Z")).isEqualTo("2027-06-07T09:00:00Z");
    }

    @Test
    void fractionsOfASecondDoNotLeakIntoFires() {
        assertThat(next("* * * * * *", "UTC", "2027-06-01T12:00:00.5Z")).isEqualTo("2027-06-01T12:00:01Z");
        assertThat(next("* * * * * *", "UTC", "2027-06-01T12:00:00Z")).isEqualTo("2027-06-01T12:00:01Z");
    }

    @ParameterizedTest
    @CsvSource({
        "@hourly,   2027-06-15T10:20:00Z, 2027-06-15T11:00:00Z",
        "@daily,    2027-06-15T10:20:00Z, 2027-06-16T00:00:00Z",
        "@midnight, 2027-06-15T10:20:00Z, 2027-06-16T00:00:00Z",
        "@weekly,   2027-06-15T10:20:00Z, 2027-06-20T00:00:00Z",
        "@monthly,  2027-06-15T10:20:00Z, 2027-07-01T00:00:00Z",
        "@yearly,   2027-06-15T10:20:00Z, 2028-01-01T00:00:00Z",
        "@annually, 2027-06-15T10:20:00Z, 2028-01-01T00:00:00Z",
        "@DAILY,    2027-06-15T10:20:00Z, 2027-06-16T00:00:00Z"
    })
    void macros(String macro, String after, String expected) {
        assertThat(next(macro, "UTC", after)).isEqualTo(expected);
    }

    @Test
    void macrosFollowTheZone() {
        assertThat(next("@daily", "Europe/Berlin", "2027-06-15T10:20:00Z")).isEqualTo("2027-06-15T22:00:00Z");
    }

    @Test
    void invalidMinuteNamesScheduleExpressionFieldAndSyntax() {
        assertThatThrownBy(() -> CronSchedule.parse("nightly-report", "61 * * * *", "UTC"))
                .isInstanceOf(InvalidScheduleException.class)
                .hasMessage("Schedule 'nightly-report': invalid cron expression '61 * * * *': minute value 61 out of"
                        + " range 0-59. Use 5 fields (minute hour day month weekday), 6 fields with seconds first,"
                        + " or a macro like @hourly.")
                .extracting(e -> ((InvalidScheduleException) e).scheduleName())
                .isEqualTo("nightly-report");
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "* 24 * * *         | hour value 24 out of range 0-23",
                "* * 0 * *          | day-of-month value 0 out of range 1-31",
                "* * * 13 *         | month value 13 out of range 1-12",
                "* * * * 8          | day-of-week value 8 out of range 0-7",
                "60 * * * * *       | second value 60 out of range 0-59",
                "* * * *            | expected 5 or 6 fields but found 4",
                "0 0 0 1 1 ? 2027   | expected 5 or 6 fields but found 7",
                "*/0 * * * *        | minute step in '*/0' must be at least 1",
                "5-2 * * * *        | minute range 5-2 runs backwards",
                "x * * * *          | minute value 'x' is not a number or a known name",
                "* * * FOO *        | month value 'FOO' is not a number or a known name",
                "@reboot            | unknown macro @reboot",
                "1,,2 * * * *       | minute field '1,,2' has an empty list element"
            })
    void invalidExpressionsSayWhatIsWrong(String cron, String problem) {
        assertThatThrownBy(() -> CronSchedule.parse("cleanup", cron, "UTC"))
                .isInstanceOf(InvalidScheduleException.class)
                .hasMessageStartingWith("Schedule 'cleanup': invalid cron expression '" + cron + "': ")
                .hasMessageContaining(problem)
                .hasMessageEndingWith("or a macro like @hourly.");
    }

    @Test
    void blankExpressionIsRejected() {
        assertThatThrownBy(() -> CronSchedule.parse("cleanup", "  ", "UTC"))
                .isInstanceOf(InvalidScheduleException.class)
                .hasMessageContaining("Schedule 'cleanup': invalid cron expression '  ': the expression is empty");
    }

    @Test
    void anExpressionThatNeverFiresIsRejected() {
        assertThatThrownBy(() -> CronSchedule.parse("leap", "0 0 30 2 *", "UTC"))
                .isInstanceOf(InvalidScheduleException.class)
                .hasMessage("Schedule 'leap': cron expression '0 0 30 2 *' never fires (no matching date, for"
                        + " example February 30)");
    }

    @Test
    void unknownZoneNamesScheduleAndZone() {
        assertThatThrownBy(() -> CronSchedule.parse("nightly-report", "0 3 * * *", "Europe/Berln"))
                .isInstanceOf(InvalidScheduleException.class)
                .hasMessage("Schedule 'nightly-report': unknown time zone 'Europe/Berln'. Use a region id such as"
                        + " 'Europe/Berlin', 'America/New_York' or 'UTC'.");
    }

    @Test
    void wronglyCasedZoneGetsASuggestion() {
        assertThatThrownBy(() -> CronSchedule.parse("nightly-report", "0 3 * * *", "europe/berlin"))
                .isInstanceOf(InvalidScheduleException.class)
                .hasMessageContaining("unknown time zone 'europe/berlin'. Did you mean 'Europe/Berlin'?");
    }

    @Test
    void keepsExpressionAndZone() {
        CronSchedule schedule = CronSchedule.parse("s", " 0 3 * * * ", "America/New_York");
        assertThat(schedule.expression()).isEqualTo("0 3 * * *");
        assertThat(schedule.zone()).isEqualTo(ZoneId.of("America/New_York"));
        assertThat(schedule.scheduleName()).isEqualTo("s");
    }
}
