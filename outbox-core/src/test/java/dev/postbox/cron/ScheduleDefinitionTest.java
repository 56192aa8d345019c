package dev.postbox.cron;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

class ScheduleDefinitionTest {

    @Test
    void defaults() {
        ScheduleDefinition d =
                ScheduleDefinition.builder("nightly-report").cron("0 3 * * *").build();
        assertThat(d.zone()).isEqualTo(ZoneOffset.UTC);
        assertThat(d.kind()).isEqualTo("nightly-report");
        assertThat(d.queue()).isEqualTo("default");
        assertThat(d.payloadTemplate()).isEqualTo("{}");
        assertThat(d.dstGapPolicy()).isEqualTo(DstGapPolicy.SHIFT);
        assertThat(d.missedFirePolicy()).isEqualTo(MissedFirePolicy.ONE);
        assertThat(d.overlapPolicy()).isEqualTo(OverlapPolicy.ALLOW);
        assertThat(d.misfireThreshold()).isEqualTo(Duration.ofMinutes(1));
    }

    @Test
    void allFieldsAndRoundTripThroughToBuilder() {
        ScheduleDefinition d = ScheduleDefinition.builder("nightly-report")
                .cron("30 2 * * *")
                .zone("Europe/Berlin")
                .kind("build-report")
                .queue("reports")
                .payloadTemplate("{\"at\":\"${fireAt}\",\"key\":\"${fireKey}\",\"s\":\"${scheduleName}\"}")
                .dstGapPolicy(DstGapPolicy.SKIP)
                .missedFirePolicy(MissedFirePolicy.ALL)
                .overlapPolicy(OverlapPolicy.SKIP_IF_RUNNING)
                .misfireThreshold(Duration.ofSeconds(30))
                .build();
        assertThat(d.zone()).isEqualTo(ZoneId.of("Europe/Berlin"));
        assertThat(d.fireCalculator().gapPolicy()).isEqualTo(DstGapPolicy.SKIP);
        assertThat(d.toBuilder().build()).isEqualTo(d).hasSameHashCodeAs(d);
        assertThat(d.toBuilder().queue("other").build()).isNotEqualTo(d);
        assertThat(d.payloadFor(Instant.parse("2027-03-29T00:30:00Z")))
                .isEqualTo("{\"at\":\"2027-03-29T00:30:00Z\",\"key\":\"nightly-report@2027-03-29T00:30:00Z\","
                        + "\"s\":\"nightly-report\"}");
    }

    @Test
    void fireKeyIsNameAtIsoUtcInstant() {
        ScheduleDefinition d = ScheduleDefinition.builder("nightly-report")
                .cron("30 2 * * *")
                .zone("Europe/Berlin")
                .build();
        Instant shifted = d.fireCalculator()
                .nextFireAfter(Instant.parse("2027-03-28T00:00:00Z"))
                .orElseThrow();
        assertThat(d.fireKey(shifted)).isEqualTo("nightly-report@2027-03-28T01:00:00Z");
        assertThat(FireKey.of("every-second", Instant.parse("2027-01-01T00:00:00.700Z")))
                .isEqualTo("every-second@2027-01-01T00:00:00Z");
    }

    @Test
    void invalidCronNamesTheSchedule() {
        assertThatThrownBy(() -> ScheduleDefinition.builder("nightly-report")
                        .cron("61 * * * *")
                        .build())
                .isInstanceOf(InvalidScheduleException.class)
                .hasMessageStartingWith(
                        "Schedule 'nightly-report': invalid cron expression '61 * * * *': minute value 61");
    }

    @Test
    void unknownZoneNamesTheSchedule() {
        assertThatThrownBy(() -> ScheduleDefinition.builder("nightly-report")
                        .cron("0 3 * * *")
                        .zone("Mars/Olympus")
                        .build())
                .isInstanceOf(InvalidScheduleException.class)
                .hasMessageStartingWith("Schedule 'nightly-report': unknown time zone 'Mars/Olympus'.");
    }

    @Test
    void missingCronIsNamed() {
        assertThatThrownBy(() -> ScheduleDefinition.builder("nightly-report").build())
                .isInstanceOf(InvalidScheduleException.class)
                .hasMessageStartingWith("Schedule 'nightly-report': cron may not be null");
    }

    @Test
    void fieldsAreValidatedWithTheirNames() {
        ScheduleDefinition.Builder b = ScheduleDefinition.builder("s");
        assertThatThrownBy(() -> b.queue(" ")).hasMessage("schedule 's': queue may not be null or blank");
        assertThatThrownBy(() -> b.kind(null)).hasMessage("schedule 's': kind may not be null or blank");
        assertThatThrownBy(() -> b.dstGapPolicy(null)).hasMessage("schedule 's': dstGapPolicy may not be null");
        assertThatThrownBy(() -> b.misfireThreshold(Duration.ofSeconds(-1)))
                .hasMessageContaining("misfireThreshold may not be negative");
    }

    @Test
    void namesMayNotContainTheFireKeySeparator() {
        assertThatThrownBy(() -> ScheduleDefinition.builder("a@b"))
                .hasMessageStartingWith("schedule name 'a@b' is invalid");
        assertThatThrownBy(() -> ScheduleDefinition.builder("")).hasMessageStartingWith("schedule name '' is invalid");
    }
}
