package dev.postbox.cron;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.time.ZoneId;
import java.util.List;
import java.util.Optional;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.StringLength;

/**
 * The cron parser under random input (issue 12): any expression and any zone either parse into a
 * schedule whose fires can be computed, or fail with {@link InvalidScheduleException} naming the
 * schedule. No other exception escapes, and no parsed schedule throws later when asked for fires.
 */
class CronParserPropertiesTest {

    private static final Instant ORIGIN = Instant.parse("2026-03-29T00:30:00Z"); // a DST change in Europe

    @Property(tries = 2000)
    void arbitraryTextParsesOrFailsWithInvalidSchedule(@ForAll @StringLength(max = 60) String expression) {
        judge(expression, ZoneId.of("UTC"));
    }

    @Property(tries = 3000)
    void cronShapedExpressionsParseOrFailWithInvalidSchedule(
            @ForAll("cronShaped") String expression, @ForAll("zones") ZoneId zone) {
        judge(expression, zone);
    }

    @Property(tries = 500)
    void arbitraryZoneNamesParseOrFailWithInvalidSchedule(@ForAll @StringLength(max = 40) String zone) {
        try {
            CronSchedule schedule = CronSchedule.parse("random-zone", "0 * * * *", zone);
            assertThat(schedule.zone()).isNotNull();
        } catch (InvalidScheduleException e) {
            assertThat(e.scheduleName()).isEqualTo("random-zone");
            assertThat(e.getMessage()).startsWith("Schedule 'random-zone': ");
        }
    }

    /** Parses, then asks for fires around a DST change: a parsed schedule must never throw later. */
    private static void judge(String expression, ZoneId zone) {
        CronSchedule schedule;
        try {
            schedule = CronSchedule.parse("random", expression, zone);
        } catch (InvalidScheduleException e) {
            assertThat(e.scheduleName()).isEqualTo("random");
            assertThat(e.getMessage()).startsWith("Schedule 'random': ");
            return;
        }
        for (DstGapPolicy policy : DstGapPolicy.values()) {
            FireCalculator fires = new FireCalculator(schedule, policy);
            Optional<Instant> next = fires.nextFireAfter(ORIGIN);
            // parse rejects expressions that never fire, so every parsed one has a next fire
            assertThat(next)
                    .as("next fire of '%s' in %s (%s)", expression, zone, policy)
                    .isPresent();
            assertThat(next.get()).isAfter(ORIGIN);
            List<Instant> between = fires.firesBetween(ORIGIN, ORIGIN.plusSeconds(3 * 86_400), 50);
            assertThat(between).isSorted().doesNotHaveDuplicates().allMatch(t -> t.isAfter(ORIGIN));
            fires.latestFireAtOrBefore(ORIGIN);
        }
    }

    @Provide
    Arbitrary<String> cronShaped() {
        Arbitrary<String> field = Arbitraries.oneOf(
                Arbitraries.of("*", "?", "L", "W", "LW", "MON", "sun", "JAN", "dec", "MON-FRI", "1#2", "5L", "15W", ""),
                Arbitraries.integers().between(-2, 70).map(String::valueOf),
                Combinators.combine(
                                Arbitraries.integers().between(-1, 62),
                                Arbitraries.integers().between(-1, 62),
                                Arbitraries.of("-", "/", ",", "#"))
                        .as((a, b, op) -> a + op + b),
                Combinators.combine(
                                Arbitraries.of("*", "0", "5", "1-10"),
                                Arbitraries.integers().between(0, 61))
                        .as((a, step) -> a + "/" + step));
        Arbitrary<String> fields = field.list().ofMinSize(1).ofMaxSize(7).map(f -> String.join(" ", f));
        Arbitrary<String> macros = Arbitraries.of(
                "@yearly",
                "@annually",
                "@monthly",
                "@weekly",
                "@daily",
                "@midnight",
                "@hourly",
                "@reboot",
                "@every",
                "@");
        return Arbitraries.frequencyOf(net.jqwik.api.Tuple.of(9, fields), net.jqwik.api.Tuple.of(1, macros));
    }

    @Provide
    Arbitrary<ZoneId> zones() {
        return Arbitraries.of(
                        "UTC", "Europe/Berlin", "America/New_York", "Australia/Lord_Howe", "Asia/Kathmandu", "+14:00")
                .map(ZoneId::of);
    }
}
