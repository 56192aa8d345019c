package dev.postbox.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class OutcomeClassifierTest {

    private final OutcomeClassifier defaults = OutcomeClassifier.ofDefaults();

    @ParameterizedTest(name = "{0} -> {1} ({2})")
    @CsvSource({
        "200, DONE, NONE",
        "201, DONE, NONE",
        "204, DONE, NONE",
        "299, DONE, NONE",
        "301, RETRY, REDIRECT",
        "302, RETRY, REDIRECT",
        "307, RETRY, REDIRECT",
        "308, RETRY, REDIRECT",
        "400, DEAD, HTTP_STATUS",
        "401, DEAD, HTTP_STATUS",
        "403, DEAD, HTTP_STATUS",
        "404, DEAD, HTTP_STATUS",
        "408, RETRY, HTTP_STATUS",
        "409, DEAD, HTTP_STATUS",
        "410, DISABLE_ENDPOINT, HTTP_STATUS",
        "413, DEAD, HTTP_STATUS",
        "422, DEAD, HTTP_STATUS",
        "425, RETRY, HTTP_STATUS",
        "429, RETRY, HTTP_STATUS",
        "500, RETRY, HTTP_STATUS",
        "502, RETRY, HTTP_STATUS",
        "503, RETRY, HTTP_STATUS",
        "504, RETRY, HTTP_STATUS",
        "599, RETRY, HTTP_STATUS"
    })
    void classifiesEachStatusClassAsTheDesignSays(int status, DeliveryOutcome outcome, FailureCause cause) {
        assertThat(defaults.classify(status)).isEqualTo(outcome);
        assertThat(defaults.causeOf(status)).isEqualTo(cause);
    }

    @Test
    void honoursRetryAfterOnlyFor429And503() {
        assertThat(defaults.honoursRetryAfter(429)).isTrue();
        assertThat(defaults.honoursRetryAfter(503)).isTrue();
        assertThat(defaults.honoursRetryAfter(500)).isFalse();
        assertThat(defaults.honoursRetryAfter(301)).isFalse();
    }

    @Test
    void retriesConfiguredClientErrorsInsteadOfDeadLettering() {
        OutcomeClassifier custom =
                OutcomeClassifier.custom().retryStatuses(409, 423).build();

        assertThat(custom.classify(409)).isEqualTo(DeliveryOutcome.RETRY);
        assertThat(custom.classify(423)).isEqualTo(DeliveryOutcome.RETRY);
        assertThat(custom.classify(429)).isEqualTo(DeliveryOutcome.RETRY);
        assertThat(custom.classify(404)).isEqualTo(DeliveryOutcome.DEAD);
        assertThat(custom.classify(410)).isEqualTo(DeliveryOutcome.DISABLE_ENDPOINT);
    }

    @Test
    void refusesNonClientErrorsAsRetryStatuses() {
        assertThatThrownBy(() -> OutcomeClassifier.custom().retryStatuses(500))
                .hasMessage("retryStatuses must be client errors (400..499), got 500");
    }
}
