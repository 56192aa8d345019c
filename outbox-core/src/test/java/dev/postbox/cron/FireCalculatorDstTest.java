package dev.postbox.cron;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The DST rules of {@link FireCalculator} on the 2027 transitions: Europe/Berlin springs forward on
 * 03-28 (02:00 CET -> 03:00 CEST at 01:00Z) and falls back on 10-31 (03:00 CEST -> 02:00 CET at
 * 01:00Z); America/New_York springs forward on 03-14 (02:00 EST -> 03:00 EDT at 07:00Z) and falls
 * back on 11-07 (02:00 EDT -> 01:00 EST at 06:00Z).
 */
class FireCalculatorDstTest {

    private static FireCalculator calculator(String cron, String zone, DstGapPolicy policy) {
        return new FireCalculator(CronSchedule.parse("dst", cron, zone), policy);
    }

    private static List<Instant> fires(FireCalculator calculator, String fromExclusive, String toInclusive) {
        return calculator.firesBetween(Instant.parse(fromExclusive), Instant.parse(toInclusive), 1000);
    }

    private static List<Instant> hourly(String firstInclusive, int count) {
        List<Instant> result = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            result.add(Instant.parse(firstInclusive).plus(Duration.ofHours(i)));
        }
        return result;
    }

    @Nested
    class BerlinSpringForward {

        @Test
        void fireInTheGapShiftsToTheFirstInstantAfterIt() {
            FireCalculator calc = calculator("30 2 * * *", "Europe/Berlin", DstGapPolicy.SHIFT);
            assertThat(fires(calc, "2027-03-27T00:00:00Z", "2027-03-29T23:59:59Z"))
                    .containsExactly(
                            Instant.parse("2027-03-27T01:30:00Z"), // 02:30 CET
                            Instant.parse("2027-03-28T01:00:00Z"), // 03:00 CEST, first instant after the gap
                            Instant.parse("2027-03-29T00:30:00Z")); // 02:30 CEST
        }

        @Test
        void fireInTheGapIsSkippedUnderSkip() {
            FireCalculator calc = calculator("30 2 * * *", "Europe/Berlin", DstGapPolicy.SKIP);
            assertThat(fires(calc, "2027-03-27T00:00:00Z", "2027-03-29T23:59:59Z"))
                    .containsExactly(Instant.parse("2027-03-27T01:30:00Z"), Instant.parse("2027-03-29T00:30:00Z"));
        }

        @Test
        void severalMatchesInsideOneGapAreOneFire() {
            FireCalculator calc = calculator("0,15,30,45 2 * * *", "Europe/Berlin", DstGapPolicy.SHIFT);
            assertThat(fires(calc, "2027-03-27T23:00:00Z", "2027-03-28T22:00:00Z"))
                    .containsExactly(Instant.parse("2027-03-28T01:00:00Z"));
        }

        @ParameterizedTest
        @EnumSource(DstGapPolicy.class)
        void hourlyFiresEveryRealHourOfThe23HourDay(DstGapPolicy policy) {
            FireCalculator calc = calculator("0 * * * *", "Europe/Berlin", policy);
            // Local 2027-03-28 runs from 00:00 CET (03-27T23:00Z) to 24:00 CEST (03-28T22:00Z).
            List<Instant> day = fires(calc, "2027-03-27T22:59:59Z", "2027-03-28T21:59:59Z");
            assertThat(day).hasSize(23).isEqualTo(hourly("2027-03-27T23:00:00Z", 23));
        }

        @Test
        void nextFireAfterTheShiftedFireIsTheNextDay() {
            FireCalculator calc = calculator("30 2 * * *", "Europe/Berlin", DstGapPolicy.SHIFT);
            assertThat(calc.nextFireAfter(Instant.parse("2027-03-28T00:59:59.500Z")))
                    .contains(Instant.parse("2027-03-28T01:00:00Z"));
            assertThat(calc.nextFireAfter(Instant.parse("2027-03-28T01:00:00Z")))
                    .contains(Instant.parse("2027-03-29T00:30:00Z"));
        }
    }

    @Nested
    class BerlinFallBack {

        @ParameterizedTest
        @EnumSource(DstGapPolicy.class)
        void repeatedWallClockTimeFiresOnceAtTheEarlierInstant(DstGapPolicy policy) {
            FireCalculator calc = calculator("30 2 * * *", "Europe/Berlin", policy);
            assertThat(fires(calc, "2027-10-30T00:00:00Z", "2027-11-01T23:59:59Z"))
                    .containsExactly(
                            Instant.parse("2027-10-30T00:30:00Z"), // 02:30 CEST
                            Instant.parse("2027-10-31T00:30:00Z"), // 02:30 CEST, first pass; not 01:30Z
                            Instant.parse("2027-11-01T01:30:00Z")); // 02:30 CET
        }

        @ParameterizedTest
        @EnumSource(DstGapPolicy.class)
        void hourlyFires24TimesOnThe25HourDayAndSkipsTheRepeatedHour(DstGapPolicy policy) {
            FireCalculator calc = calculator("0 * * * *", "Europe/Berlin", policy);
            // Local 2027-10-31 runs from 00:00 CEST (10-30T22:00Z) to 24:00 CET (10-31T23:00Z): 25 hours.
            List<Instant> day = fires(calc, "2027-10-30T21:59:59Z", "2027-10-31T22:59:59Z");
            assertThat(day).hasSize(24).doesNotContain(Instant.parse("2027-10-31T01:00:00Z")); // 02:00 CET
            assertThat(day.subList(0, 3)).isEqualTo(hourly("2027-10-30T22:00:00Z", 3)); // 00:00 to 02:00 CEST
            assertThat(day.subList(3, 24)).isEqualTo(hourly("2027-10-31T02:00:00Z", 21)); // 03:00 to 23:00 CET
        }
    }

    @Nested
    class NewYorkSpringForward {

        @Test
        void fireInTheGapShiftsToThreeAmEdt() {
            FireCalculator calc = calculator("30 2 * * *", "America/New_York", DstGapPolicy.SHIFT);
            assertThat(fires(calc, "2027-03-13T00:00:00Z", "2027-03-15T23:59:59Z"))
                    .containsExactly(
                            Instant.parse("2027-03-13T07:30:00Z"), // 02:30 EST
                            Instant.parse("2027-03-14T07:00:00Z"), // 03:00 EDT
                            Instant.parse("2027-03-15T06:30:00Z")); // 02:30 EDT
        }

        @Test
        void fireInTheGapIsSkippedUnderSkip() {
            FireCalculator calc = calculator("30 2 * * *", "America/New_York", DstGapPolicy.SKIP);
            assertThat(fires(calc, "2027-03-13T00:00:00Z", "2027-03-15T23:59:59Z"))
                    .containsExactly(Instant.parse("2027-03-13T07:30:00Z"), Instant.parse("2027-03-15T06:30:00Z"));
        }

        @ParameterizedTest
        @EnumSource(DstGapPolicy.class)
        void hourlyFiresEveryRealHourOfThe23HourDay(DstGapPolicy policy) {
            FireCalculator calc = calculator("0 * * * *", "America/New_York", policy);
            // Local 2027-03-14 runs from 00:00 EST (05:00Z) to 24:00 EDT (03-15T04:00Z).
            List<Instant> day = fires(calc, "2027-03-14T04:59:59Z", "2027-03-15T03:59:59Z");
            assertThat(day).hasSize(23).isEqualTo(hourly("2027-03-14T05:00:00Z", 23));
        }
    }

    @Nested
    class NewYorkFallBack {

        @ParameterizedTest
        @EnumSource(DstGapPolicy.class)
        void oneThirtyFiresOnceAtOneThirtyEdt(DstGapPolicy policy) {
            FireCalculator calc = calculator("30 1 * * *", "America/New_York", policy);
            assertThat(fires(calc, "2027-11-06T00:00:00Z", "2027-11-08T23:59:59Z"))
                    .containsExactly(
                            Instant.parse("2027-11-06T05:30:00Z"), // 01:30 EDT
                            Instant.parse("2027-11-07T05:30:00Z"), // 01:30 EDT; 01:30 EST (06:30Z) does not fire
                            Instant.parse("2027-11-08T06:30:00Z")); // 01:30 EST
        }

        @ParameterizedTest
        @EnumSource(DstGapPolicy.class)
        void twoThirtyIsUnambiguous(DstGapPolicy policy) {
            FireCalculator calc = calculator("30 2 * * *", "America/New_York", policy);
            assertThat(fires(calc, "2027-11-07T00:00:00Z", "2027-11-07T23:59:59Z"))
                    .containsExactly(Instant.parse("2027-11-07T07:30:00Z"));
        }

        @ParameterizedTest
        @EnumSource(DstGapPolicy.class)
        void hourlyFires24TimesOnThe25HourDay(DstGapPolicy policy) {
            FireCalculator calc = calculator("0 * * * *", "America/New_York", policy);
            // Local 2027-11-07 runs from 00:00 EDT (04:00Z) to 24:00 EST (11-08T05:00Z): 25 hours.
            List<Instant> day = fires(calc, "2027-11-07T03:59:59Z", "2027-11-08T04:59:59Z");
            assertThat(day).hasSize(24).doesNotContain(Instant.parse("2027-11-07T06:00:00Z")); // 01:00 EST
            assertThat(day.subList(0, 2)).isEqualTo(hourly("2027-11-07T04:00:00Z", 2)); // 00:00, 01:00 EDT
            assertThat(day.subList(2, 24)).isEqualTo(hourly("2027-11-07T07:00:00Z", 22)); // 02:00 to 23:00 EST
        }

        @Test
        void fromInsideTheRepeatedHourTheNextFireIsAfterIt() {
            FireCalculator calc = calculator("*/15 * * * *", "America/New_York", DstGapPolicy.SHIFT);
            // 06:10Z is 01:10 EST; local 01:15..01:45 already fired in the first pass.
            assertThat(calc.nextFireAfter(Instant.parse("2027-11-07T06:10:00Z")))
                    .contains(Instant.parse("2027-11-07T07:00:00Z"));
            // In the first pass (01:10 EDT) the quarter hours still lie ahead.
            assertThat(calc.nextFireAfter(Instant.parse("2027-11-07T05:10:00Z")))
                    .contains(Instant.parse("2027-11-07T05:15:00Z"));
        }

        @Test
        void latestFireLooksBackAcrossTheRepeatedHour() {
            FireCalculator calc = calculator("*/15 * * * *", "America/New_York", DstGapPolicy.SHIFT);
            assertThat(calc.latestFireAtOrBefore(Instant.parse("2027-11-07T06:30:00Z")))
                    .contains(Instant.parse("2027-11-07T05:45:00Z"));
            assertThat(calc.latestFireAtOrBefore(Instant.parse("2027-11-07T07:00:00Z")))
                    .contains(Instant.parse("2027-11-07T07:00:00Z"));
        }
    }

    @Test
    void latestFireUnderSkipIgnoresTheGap() {
        FireCalculator skip = calculator("30 2 * * *", "Europe/Berlin", DstGapPolicy.SKIP);
        FireCalculator shift = calculator("30 2 * * *", "Europe/Berlin", DstGapPolicy.SHIFT);
        Instant evening = Instant.parse("2027-03-28T20:00:00Z");
        assertThat(skip.latestFireAtOrBefore(evening)).contains(Instant.parse("2027-03-27T01:30:00Z"));
        assertThat(shift.latestFireAtOrBefore(evening)).contains(Instant.parse("2027-03-28T01:00:00Z"));
    }

    @Test
    void utcZoneFiresEveryRealHourAcrossFallBack() {
        FireCalculator calc = calculator("0 * * * *", "UTC", DstGapPolicy.SHIFT);
        assertThat(fires(calc, "2027-11-07T03:59:59Z", "2027-11-08T04:59:59Z")).hasSize(25);
    }

    @Test
    void firesBetweenHonoursTheLimitAndTheBounds() {
        FireCalculator calc = calculator("0 * * * *", "UTC", DstGapPolicy.SHIFT);
        assertThat(fires(calc, "2027-01-01T00:00:00Z", "2027-01-01T03:00:00Z"))
                .isEqualTo(hourly("2027-01-01T01:00:00Z", 3));
        assertThat(calc.firesBetween(Instant.parse("2027-01-01T00:00:00Z"), Instant.parse("2027-01-02T00:00:00Z"), 2))
                .isEqualTo(hourly("2027-01-01T01:00:00Z", 2));
        assertThat(calc.firesBetween(Instant.parse("2027-01-01T00:00:00Z"), Instant.parse("2027-01-01T00:59:59Z"), 5))
                .isEmpty();
    }
}
