package dev.postbox.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** A job attempt's time limit cuts the call's timeouts, never lengthens them. */
class EndpointTimeoutsWithinTest {

    @Test
    void timeoutsLongerThanTheBudgetAreCutToIt() {
        EndpointTimeouts cut = EndpointTimeouts.DEFAULTS.within(Duration.ofSeconds(8));

        assertThat(cut)
                .isEqualTo(new EndpointTimeouts(Duration.ofSeconds(5), Duration.ofSeconds(8), Duration.ofSeconds(8)));
    }

    @Test
    void aSpentBudgetLeavesOneMillisecondRatherThanNoTimeoutAtAll() {
        EndpointTimeouts cut = EndpointTimeouts.DEFAULTS.within(Duration.ZERO);

        assertThat(cut.callTimeout()).isEqualTo(Duration.ofMillis(1));
        assertThat(cut.connectTimeout()).isEqualTo(Duration.ofMillis(1));
    }
}
