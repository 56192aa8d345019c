package dev.postbox.cron;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class MissedFirePlannerTest {

    private static final Instant LAST_FIRE = Instant.parse("2027-05-01T00:00:00Z");
    /** Down for ten hourly intervals: 01:00 to 10:00 missed, resumed at 10:45. */
    private static final Instant RESUMED = Instant.parse("2027-05-01T10:45:00Z");

    private static MissedFirePlanner planner(String cron, MissedFirePolicy policy, int maxFiresPerPass) {
        FireCalculator calc = new FireCalculator(CronSchedule.parse("missed", cron, "UTC"), DstGapPolicy.SHIFT);
        return new MissedFirePlanner(calc, policy, Duration.ofMinutes(1), maxFiresPerPass);
    }

    private static List<Instant> hours(int fromHour, int toHour) {
        List<Instant> result = new ArrayList<>();
        for (int h = fromHour; h <= toHour; h++) {
            result.add(LAST_FIRE.plus(Duration.ofHours(h)));
        }
        return result;
    }

    @Test
    void oneCatchUpFireAtTheLatestMissedInstant() {
        FirePlan plan = planner("0 * * * *", MissedFirePolicy.ONE, 100).plan(LAST_FIRE, RESUMED);
        assertThat(plan.fires()).containsExactly(Instant.parse("2027-05-01T10:00:00Z"));
        assertThat(plan.nextFireAt()).isEqualTo("2027-05-01T11:00:00Z");
        assertThat(plan.missedFiresDropped()).isTrue();
    }

    @Test
    void allMissedFires() {
        FirePlan plan = planner("0 * * * *", MissedFirePolicy.ALL, 100).plan(LAST_FIRE, RESUMED);
        assertThat(plan.fires()).hasSize(10).isEqualTo(hours(1, 10));
        assertThat(plan.nextFireAt()).isEqualTo("2027-05-01T11:00:00Z");
        assertThat(plan.missedFiresDropped()).isFalse();
    }

    @Test
    void noMissedFires() {
        FirePlan plan = planner("0 * * * *", MissedFirePolicy.NONE, 100).plan(LAST_FIRE, RESUMED);
        assertThat(plan.fires()).isEmpty();
        assertThat(plan.nextFireAt()).isEqualTo("2027-05-01T11:00:00Z");
        assertThat(plan.missedFiresDropped()).isTrue();
    }

    @Test
    void storedNextFireIsTheFirstCandidate() {
        Instant storedNext = Instant.parse("2027-05-01T01:00:00Z");
        assertThat(planner("0 * * * *", MissedFirePolicy.ALL, 100)
                        .planFromStoredNextFire(storedNext, RESUMED)
                        .fires())
                .isEqualTo(hours(1, 10));
        assertThat(planner("0 * * * *", MissedFirePolicy.ONE, 100)
                        .planFromStoredNextFire(storedNext, RESUMED)
                        .fires())
                .containsExactly(Instant.parse("2027-05-01T10:00:00Z"));
    }

    @ParameterizedTest
    @EnumSource(MissedFirePolicy.class)
    void lateFiresWithinTheThresholdAreAlwaysMaterialised(MissedFirePolicy policy) {
        // An every-second schedule polled 5 s late: late, not missed.
        Instant after = Instant.parse("2027-05-01T12:00:00Z");
        FirePlan plan = planner("* * * * * *", policy, 100)
                .plan(after, after.plusSeconds(5).plusMillis(300));
        assertThat(plan.fires()).hasSize(5).first().isEqualTo(after.plusSeconds(1));
        assertThat(plan.nextFireAt()).isEqualTo(after.plusSeconds(6));
        assertThat(plan.missedFiresDropped()).isFalse();
    }

    @Test
    void oneKeepsOnTimeFiresNextToTheCatchUp() {
        Instant now = Instant.parse("2027-05-01T10:00:30Z"); // 10:00 is on time, 01:00-09:00 missed
        FirePlan plan = planner("0 * * * *", MissedFirePolicy.ONE, 100).plan(LAST_FIRE, now);
        assertThat(plan.fires()).isEqualTo(hours(9, 10));
    }

    @Test
    void nothingDueYieldsTheNextFireOnly() {
        FirePlan plan =
                planner("0 * * * *", MissedFirePolicy.ONE, 100).plan(LAST_FIRE, Instant.parse("2027-05-01T00:59:59Z"));
        assertThat(plan.fires()).isEmpty();
        assertThat(plan.nextFireAt()).isEqualTo("2027-05-01T01:00:00Z");
    }

    @Test
    void allIsCappedPerPassAndContinuesInTheNextPass() {
        MissedFirePlanner planner = planner("0 * * * *", MissedFirePolicy.ALL, 4);
        FirePlan first = planner.plan(LAST_FIRE, RESUMED);
        assertThat(first.fires()).isEqualTo(hours(1, 4));
        assertThat(first.nextFireAt()).isEqualTo("2027-05-01T05:00:00Z");

        List<Instant> all = new ArrayList<>(first.fires());
        FirePlan plan = first;
        while (!plan.nextFireAt().isAfter(RESUMED)) {
            plan = planner.planFromStoredNextFire(plan.nextFireAt(), RESUMED);
            all.addAll(plan.fires());
        }
        assertThat(all).isEqualTo(hours(1, 10));
        assertThat(plan.nextFireAt()).isEqualTo("2027-05-01T11:00:00Z");
    }

    @Test
    void rejectsInvalidArguments() {
        FireCalculator calc = new FireCalculator(CronSchedule.parse("x", "@hourly", "UTC"), DstGapPolicy.SHIFT);
        assertThatThrownBy(() -> new MissedFirePlanner(calc, MissedFirePolicy.ONE, Duration.ofSeconds(-1), 10))
                .hasMessageContaining("misfireThreshold");
        assertThatThrownBy(() -> new MissedFirePlanner(calc, MissedFirePolicy.ONE, Duration.ZERO, 0))
                .hasMessageContaining("maxFiresPerPass must be at least 1, was 0");
    }
}
