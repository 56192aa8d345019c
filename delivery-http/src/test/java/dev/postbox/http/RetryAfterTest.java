package dev.postbox.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.NullSource;
import org.junit.jupiter.params.provider.ValueSource;

class RetryAfterTest {

    // Wed, 21 Oct 2015 07:28:00 GMT
    private static final Instant NOW = Instant.parse("2015-10-21T07:28:00Z");
    private final RetryAfter retryAfter =
            RetryAfter.of(Duration.ofSeconds(1), Duration.ofMinutes(10), Clock.fixed(NOW, ZoneOffset.UTC));

    @Test
    void parsesDeltaSeconds() {
        assertThat(retryAfter.parse("120")).contains(Duration.ofSeconds(120));
        assertThat(retryAfter.parse(" 5 ")).contains(Duration.ofSeconds(5));
    }

    @Test
    void parsesAnHttpDateRelativeToTheClock() {
        assertThat(retryAfter.parse("Wed, 21 Oct 2015 07:30:00 GMT")).contains(Duration.ofMinutes(2));
    }

    @Test
    void clampsToTheBounds() {
        assertThat(retryAfter.parse("0")).contains(Duration.ofSeconds(1));
        assertThat(retryAfter.parse("86400")).contains(Duration.ofMinutes(10));
        assertThat(retryAfter.parse("99999999999999999999999999")).contains(Duration.ofMinutes(10));
        assertThat(retryAfter.parse("Wed, 21 Oct 2015 07:00:00 GMT")).contains(Duration.ofSeconds(1));
        assertThat(retryAfter.parse("Thu, 22 Oct 2015 07:28:00 GMT")).contains(Duration.ofMinutes(10));
    }

    @ParameterizedTest
    @NullSource
    @ValueSource(
            strings = {"", "  ", "-5", "1.5", "soon", "2015-10-21T07:30:00Z", "Wed, 32 Oct 2015 07:30:00 GMT", "0x10"})
    void ignoresGarbage(String value) {
        assertThat(retryAfter.parse(value)).isEmpty();
    }

    @Test
    void validatesItsBounds() {
        Clock clock = Clock.systemUTC();
        assertThatThrownBy(() -> RetryAfter.of(Duration.ofSeconds(-1), Duration.ofSeconds(1), clock))
                .hasMessageContaining("min may not be negative");
        assertThatThrownBy(() -> RetryAfter.of(Duration.ofSeconds(10), Duration.ofSeconds(1), clock))
                .hasMessageContaining("max must be at least min");
    }
}
