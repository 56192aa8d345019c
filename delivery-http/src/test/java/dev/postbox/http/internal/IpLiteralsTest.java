package dev.postbox.http.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class IpLiteralsTest {

    @ParameterizedTest
    @CsvSource({
        "127.0.0.1, 127.0.0.1",
        "[::1], ::1",
        "::, ::",
        "0:0:0:0:0:ffff:7f00:1, ::ffff:127.0.0.1",
        "2001:db8:0:0:1:0:0:1, 2001:db8::1:0:0:1",
        "2001:0:0:1:0:0:0:1, 2001:0:0:1::1",
        "fe80:0:0:0:0:0:0:0, fe80::",
        "2001:db8:0:1:1:1:1:1, 2001:db8:0:1:1:1:1:1"
    })
    void parsesAndFormatsCanonically(String literal, String canonical) {
        assertThat(IpLiterals.parse(literal).map(a -> IpLiterals.format(a.getAddress())))
                .contains(canonical);
    }

    @ParameterizedTest
    @ValueSource(strings = {"example.com", "256.0.0.1", "01.2.3.4", "1.2.3", "fe80::1%eth0", "[::1", "", "1.2.3.4.5"})
    void neverTreatsNamesOrNonCanonicalFormsAsLiterals(String text) {
        assertThat(IpLiterals.parse(text)).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = {"2130706433", "127.1", "0x7f000001", "0177.0.0.1", "1.2.3.0x4", "256.0.0.1", "example.123"})
    void flagsAmbiguousNumericHosts(String host) {
        assertThat(IpLiterals.isAmbiguousNumericHost(host)).isTrue();
    }

    @ParameterizedTest
    @ValueSource(strings = {"example.com", "127.0.0.1", "1password.com", "hooks.internal", "a1.b2"})
    void doesNotFlagNamesOrCanonicalLiterals(String host) {
        assertThat(IpLiterals.isAmbiguousNumericHost(host)).isFalse();
    }
}
