package dev.postbox.http.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class CidrTest {

    private static byte[] ip(String literal) {
        return IpLiterals.parse(literal).orElseThrow().getAddress();
    }

    @Test
    void containsAddressesInsideItsPrefixOnly() {
        Cidr cgnat = Cidr.parse("100.64.0.0/10");

        assertThat(cgnat.contains(ip("100.64.0.0"))).isTrue();
        assertThat(cgnat.contains(ip("100.127.255.255"))).isTrue();
        assertThat(cgnat.contains(ip("100.128.0.0"))).isFalse();
        assertThat(cgnat.contains(ip("100.63.255.255"))).isFalse();
        assertThat(cgnat.contains(ip("::ffff:100.64.0.1"))).isFalse();
    }

    @Test
    void normalizesTheNetworkAndTreatsABareAddressAsOneHost() {
        assertThat(Cidr.parse("10.1.2.3/8")).hasToString("10.0.0.0/8");
        assertThat(Cidr.parse("127.0.0.1").isSingleHost()).isTrue();
        assertThat(Cidr.parse("fc00::/7").contains(ip("fdff::1"))).isTrue();
        assertThat(Cidr.parse("0.0.0.0/0").contains(ip("8.8.8.8"))).isTrue();
    }

    @Test
    void rejectsMalformedInput() {
        assertThatThrownBy(() -> Cidr.parse("10.0.0.0/")).hasMessageContaining("is not a CIDR");
        assertThatThrownBy(() -> Cidr.parse("::/129")).hasMessageContaining("is not a CIDR");
        assertThatThrownBy(() -> Cidr.parse("example.com/8")).hasMessageContaining("is not a CIDR");
    }
}
