package dev.postbox.chaos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The verdict over synthetic counts, in milliseconds and without a run: each failure count alone
 * makes a run invalid and is named among its failures, each control's counter is one the verdict
 * judges, and a count the result lacks fails the checker instead of passing as a zero.
 */
class CheckerVerdictTest {

    /** A clean run: every failure count and every part of one is 0. */
    private static ChaosResult clean() {
        ChaosResult r = new ChaosResult();
        ChaosResult.FAILURES.forEach(key -> r.put(key, 0L));
        ChaosResult.PARTS.keySet().forEach(key -> r.put(key, 0L));
        r.put("intentsCommitted", 1_000L); // a reported count, never a failure
        return r;
    }

    static List<String> failures() {
        return ChaosResult.FAILURES;
    }

    static List<Map.Entry<String, String>> parts() {
        return List.copyOf(ChaosResult.PARTS.entrySet());
    }

    @Test
    void aCleanRunIsValid() {
        ChaosResult r = clean();
        r.finish();

        assertThat(Checker.failures(r)).isEmpty();
        assertThat(r.values().get("verdict")).isEqualTo("valid");
    }

    @ParameterizedTest
    @MethodSource("failures")
    void eachFailureCountAloneMakesTheRunInvalidAndNamesItself(String counter) {
        ChaosResult r = clean();
        r.put(counter, 1L);
        r.finish();

        assertThat(r.values().get("verdict")).isEqualTo("invalid");
        assertThat(Checker.failing(r)).containsExactly(Map.entry(counter, 1L));
        assertThat(Checker.failures(r)).containsExactly(counter + "=1");
    }

    @ParameterizedTest
    @MethodSource("parts")
    void aPartOfAFailureCountIsNamedBesideIt(Map.Entry<String, String> part) {
        ChaosResult r = clean();
        r.put(part.getKey(), 2L);
        r.put(part.getValue(), 2L); // the checker counts a part within its whole
        r.finish();

        assertThat(r.values().get("verdict")).isEqualTo("invalid");
        Map<String, Long> expected = new LinkedHashMap<>();
        expected.put(part.getValue(), 2L);
        expected.put(part.getKey(), 2L);
        assertThat(Checker.failing(r)).containsExactlyEntriesOf(expected);
    }

    @ParameterizedTest
    @EnumSource(Control.class)
    void eachControlsCounterAloneMakesTheRunInvalidAndNamesItself(Control control) {
        ChaosResult.requireJudged(control.counter());
        ChaosResult r = clean();
        r.put(control.counter(), 3L);
        String whole = ChaosResult.PARTS.get(control.counter());
        if (whole != null) {
            r.put(whole, 3L);
        }
        r.finish();

        ChaosTest.assertCaught(r, control);
    }

    @Test
    void thePerKeyOrderAndHungHandlerCountsAreJudged() {
        // issue 30's and 36's counters: a run that moved any of them alone is invalid and names it
        assertThat(ChaosResult.FAILURES)
                .contains("keyHandlerOverlaps", "commitOrderInversions", "hungAttemptsOverrun")
                .doesNotContain("orderViolations");
        assertThat(ChaosResult.PARTS).containsEntry("duplicateEffectsHung", "duplicateEffects");
        for (String counter : List.of("keyHandlerOverlaps", "commitOrderInversions", "hungAttemptsOverrun")) {
            ChaosResult r = clean();
            r.put(counter, 2L);
            r.finish();
            assertThat(r.valid()).as(counter).isFalse();
            assertThat(Checker.failures(r)).containsExactly(counter + "=2");
        }
    }

    @Test
    void aCountThatMovedOutsideTheVerdictIsNotCaught() {
        ChaosResult r = clean();
        r.put("kafkaDuplicates", 5L); // reported, at-least-once delivery: not a failure
        r.put("lost", 1L);
        r.finish();

        assertThat(Checker.failing(r)).containsOnlyKeys("lost");
        assertThatThrownBy(() -> ChaosTest.assertCaughtBy(r, "kafkaDuplicates", "a reported count"))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("kafkaDuplicates");
    }

    @ParameterizedTest
    @MethodSource("failures")
    void aMissingFailureCountFailsTheChecker(String counter) {
        ChaosResult r = clean();
        r.values().remove(counter);

        assertThatThrownBy(() -> Checker.failures(r))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("'" + counter + "'");
    }

    @Test
    void aMissingPartOfAMovedCountFailsTheChecker() {
        ChaosResult r = clean();
        r.put("duplicateEffects", 1L);
        r.values().remove("duplicateEffectsLocal");

        assertThatThrownBy(() -> Checker.failures(r))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("'duplicateEffectsLocal'");
    }

    @Test
    void anUnknownCounterFailsBeforeItsRun() {
        assertThatThrownBy(() -> ChaosResult.requireJudged("lostt"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'lostt'")
                .hasMessageContaining("ChaosResult.FAILURES");
        assertThatThrownBy(() -> ChaosResult.requireJudged("kafkaDuplicates"))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
