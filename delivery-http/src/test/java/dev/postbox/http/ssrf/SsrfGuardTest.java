package dev.postbox.http.ssrf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.postbox.http.RedactedUrl;
import dev.postbox.http.internal.IpLiterals;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.UnknownHostException;
import java.util.List;
import java.util.Map;
import okhttp3.Dns;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

public class SsrfGuardTest {

    private final SsrfGuard defaults = SsrfGuard.of(SsrfPolicy.ofDefaults());

    public static InetAddress ip(String literal) {
        return IpLiterals.parse(literal).orElseThrow(() -> new AssertionError("not a literal: " + literal));
    }

    @ParameterizedTest(name = "{0} is {1}")
    @CsvSource({
        "127.0.0.1, LOOPBACK",
        "127.255.255.254, LOOPBACK",
        "::1, LOOPBACK",
        "10.1.2.3, PRIVATE",
        "172.16.0.1, PRIVATE",
        "172.31.255.255, PRIVATE",
        "192.168.1.1, PRIVATE",
        "fc00::1, PRIVATE",
        "fd12:3456::1, PRIVATE",
        "fec0::1, PRIVATE",
        "169.254.1.1, LINK_LOCAL",
        "fe80::1, LINK_LOCAL",
        "100.64.0.1, SHARED_CGNAT",
        "100.127.255.255, SHARED_CGNAT",
        "224.0.0.1, MULTICAST",
        "239.255.255.250, MULTICAST",
        "ff02::1, MULTICAST",
        "0.0.0.0, UNSPECIFIED",
        "::, UNSPECIFIED",
        "255.255.255.255, BROADCAST",
        "192.0.2.1, DOCUMENTATION",
        "198.51.100.7, DOCUMENTATION",
        "203.0.113.9, DOCUMENTATION",
        "2001:db8::1, DOCUMENTATION",
        "198.18.0.1, BENCHMARKING",
        "198.19.255.255, BENCHMARKING",
        "169.254.169.254, CLOUD_METADATA",
        "fd00:ec2::254, CLOUD_METADATA",
        "100.100.100.200, CLOUD_METADATA",
        "168.63.129.16, CLOUD_METADATA",
        "240.0.0.1, RESERVED",
        "250.1.1.1, RESERVED",
        "0.1.2.3, RESERVED",
        "192.0.0.8, RESERVED",
        // IPv6 forms embedding a forbidden IPv4 address
        "::ffff:127.0.0.1, LOOPBACK",
        "::ffff:10.0.0.1, PRIVATE",
        "::ffff:169.254.169.254, CLOUD_METADATA",
        "::127.0.0.1, LOOPBACK",
        "::10.0.0.1, PRIVATE",
        "64:ff9b::127.0.0.1, LOOPBACK",
        "64:ff9b::a9fe:a9fe, CLOUD_METADATA",
        "64:ff9b:1::1, PRIVATE",
        "2002:7f00:1::, LOOPBACK",
        "2002:a9fe:a9fe::1, CLOUD_METADATA",
        "2002:c0a8:101::, PRIVATE",
        "2001:0:7f00:1::, LOOPBACK", // Teredo, server 127.0.0.1
        "2001:0:4136:e378:8000:63bf:3fff:fdd2, DOCUMENTATION", // Teredo, client 192.0.2.45 (inverted)
        "2001:0:4136:e378:8000:63bf:f5ff:fffe, PRIVATE", // Teredo, client 10.0.0.1 (inverted)
        "::808:808, RESERVED" // IPv4-compatible form of a public address: deprecated
    })
    void forbidsNonPublicDestinations(String literal, AddressCategory category) {
        AddressVerdict verdict = defaults.check(ip(literal));

        assertThat(verdict.forbidden()).as(verdict.reason()).isTrue();
        assertThat(verdict.category()).isEqualTo(category);
        assertThat(verdict.reason()).contains(category.description());
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "93.184.215.14",
                "8.8.8.8",
                "1.1.1.1",
                "11.0.0.1",
                "172.32.0.1",
                "100.128.0.1",
                "198.20.0.1",
                "169.255.0.1",
                "2606:4700:4700::1111",
                "::ffff:8.8.8.8",
                "64:ff9b::808:808",
                "2002:808:808::1"
            })
    void allowsPublicDestinations(String literal) {
        AddressVerdict verdict = defaults.check(ip(literal));

        assertThat(verdict.allowed()).as(verdict.reason()).isTrue();
        assertThat(verdict.category()).isEqualTo(AddressCategory.PUBLIC);
    }

    @Test
    void explainsEmbeddedForms() {
        assertThat(defaults.check(ip("::ffff:127.0.0.1")).reason())
                .isEqualTo("::ffff:127.0.0.1 is an IPv4-mapped form of 127.0.0.1, a loopback address");
        assertThat(defaults.check(ip("2002:a9fe:a9fe::1")).reason())
                .contains("6to4 (2002::/16) form of 169.254.169.254");
    }

    @Test
    void allowListedNetworksAreAllowed() {
        SsrfGuard guard = SsrfGuard.of(SsrfPolicy.custom()
                .allow("127.0.0.1/32")
                .allow("10.0.0.0/8")
                .allow("fd00::/8")
                .build());

        assertThat(guard.check(ip("127.0.0.1")).allowed()).isTrue();
        assertThat(guard.check(ip("127.0.0.1")).reason()).contains("allow-listed by 127.0.0.1/32");
        assertThat(guard.check(ip("127.0.0.2")).allowed()).isFalse();
        assertThat(guard.check(ip("10.200.0.1")).allowed()).isTrue();
        assertThat(guard.check(ip("fd12::1")).allowed()).isTrue();
        assertThat(guard.check(ip("192.168.0.1")).allowed()).isFalse();
    }

    @Test
    void cloudMetadataNeedsAnExactEntryNotARange() {
        SsrfGuard wide =
                SsrfGuard.of(SsrfPolicy.custom().allow("169.254.0.0/16").build());
        SsrfGuard exact =
                SsrfGuard.of(SsrfPolicy.custom().allow("169.254.169.254").build());

        assertThat(wide.check(ip("169.254.1.1")).allowed()).isTrue();
        assertThat(wide.check(ip("169.254.169.254")).allowed()).isFalse();
        assertThat(exact.check(ip("169.254.169.254")).allowed()).isTrue();
    }

    @Test
    void allowListedHostNamesAreTrustedWhateverTheyResolveTo() {
        SsrfPolicy policy = SsrfPolicy.custom()
                .allowList(List.of("hooks.internal", "*.corp.example"))
                .build();
        SsrfGuard guard = SsrfGuard.of(policy);

        assertThat(guard.check("hooks.internal", ip("10.0.0.1")).allowed()).isTrue();
        assertThat(guard.check("HOOKS.Internal.", ip("10.0.0.1")).allowed()).isTrue();
        assertThat(guard.check("a.b.corp.example", ip("10.0.0.1")).allowed()).isTrue();
        assertThat(guard.check("corp.example", ip("10.0.0.1")).allowed()).isFalse();
        assertThat(guard.check("evilcorp.example", ip("10.0.0.1")).allowed()).isFalse();
        assertThat(guard.check("other.internal", ip("10.0.0.1")).allowed()).isFalse();
    }

    @ParameterizedTest(name = "an allow-listed name resolving to {0} is refused")
    @ValueSource(
            strings = {
                "169.254.169.254",
                "169.254.170.2",
                "169.254.1.1",
                "fd00:ec2::254",
                "fe80::1",
                "::ffff:169.254.169.254",
                "100.100.100.200",
                "0.0.0.0",
                "::"
            })
    void anAllowListedNameDoesNotOpenLinkLocalOrMetadataAddresses(String literal) {
        SsrfGuard guard = SsrfGuard.of(SsrfPolicy.custom()
                .allowList(List.of("hooks.internal", "*.corp.example", "10.0.0.0/8", "169.254.0.0/16"))
                .build());

        AddressVerdict verdict = guard.check("hooks.internal", ip(literal));
        assertThat(verdict.allowed()).as(verdict.reason()).isFalse();
        assertThat(verdict.reason())
                .contains("host hooks.internal is allow-listed, but")
                .contains("allow-list the exact address");
        assertThat(guard.check("a.corp.example", ip(literal)).allowed()).isFalse();
        assertThat(guard.check("hooks.internal", ip("10.0.0.1")).allowed()).isTrue();
    }

    @Test
    void anExactAddressEntryLetsAnAllowListedNameReachThatAddressOnly() {
        SsrfGuard guard = SsrfGuard.of(SsrfPolicy.custom()
                .allowList(List.of("metadata.internal", "169.254.169.254/32", "fd00:ec2::254"))
                .build());

        assertThat(guard.check("metadata.internal", ip("169.254.169.254")).allowed())
                .isTrue();
        assertThat(guard.check("metadata.internal", ip("fd00:ec2::254")).allowed())
                .isTrue();
        assertThat(guard.check("metadata.internal", ip("169.254.170.2")).allowed())
                .isFalse();
    }

    @Test
    void guardedDnsRefusesAnAllowListedNameThatResolvesToTheMetadataService() {
        SsrfGuard guard =
                SsrfGuard.of(SsrfPolicy.custom().allow("billing.internal").build());
        Dns guarded = guard.dns(fakeDns(Map.of("billing.internal", List.of(ip("10.1.1.1"), ip("169.254.169.254")))));

        assertThatThrownBy(() -> guarded.lookup("billing.internal"))
                .isInstanceOf(UnknownHostException.class)
                .hasMessageContaining("169.254.169.254 is a cloud metadata service address")
                .hasMessageContaining("169.254.169.254/32");
    }

    @ParameterizedTest(name = "{0} is refused by the default port policy")
    @CsvSource({
        "https://hooks.example.com:6379/, port 6379 (Redis), remove 6379 from postbox.http.denied-ports",
        "http://hooks.example.com:2375/v1/containers, port 2375 (Docker API), remove 2375 from postbox.http.denied-ports",
        "https://hooks.example.com:5432/, port 5432 (PostgreSQL), remove 5432 from postbox.http.denied-ports",
        "http://hooks.example.com:22/, port 22 (SSH), add 22 to postbox.http.allowed-ports",
        "http://hooks.example.com:25/, port 25 (SMTP), add 25 to postbox.http.allowed-ports",
        "http://hooks.example.com:8/, port 8, add 8 to postbox.http.allowed-ports"
    })
    void refusesInternalServicePortsNamingTheServiceAndTheProperty(String url, String port, String fix) {
        SsrfGuard allowListed =
                SsrfGuard.of(SsrfPolicy.custom().allow("hooks.example.com").build());
        for (SsrfGuard guard : List.of(defaults, allowListed)) {
            assertThatThrownBy(() -> guard.validateUrl(url))
                    .isInstanceOf(ForbiddenDestinationException.class)
                    .hasMessageContaining(port)
                    .hasMessageContaining(fix);
        }
    }

    @ParameterizedTest(name = "{0} passes the default port policy")
    @ValueSource(
            strings = {
                "http://hooks.example.com/",
                "https://hooks.example.com/",
                "https://hooks.example.com:443/",
                "https://hooks.example.com:8443/",
                "http://hooks.example.com:8080/",
                "https://hooks.example.com:65535/"
            })
    void acceptsWebAndUnprivilegedPorts(String url) {
        assertThatCode(() -> defaults.validateUrl(url)).doesNotThrowAnyException();
    }

    @Test
    void aCustomPortPolicyIsEnforced() {
        SsrfGuard onlyHttps = SsrfGuard.of(SsrfPolicy.custom()
                .ports(PortPolicy.of(List.of("443"), List.of()))
                .build());
        assertThatCode(() -> onlyHttps.validateUrl("https://hooks.example.com/"))
                .doesNotThrowAnyException();
        assertThatThrownBy(() -> onlyHttps.validateUrl("https://hooks.example.com:8443/"))
                .hasMessageContaining("allowed: 443");

        SsrfGuard redisOpen = SsrfGuard.of(SsrfPolicy.custom()
                .ports(PortPolicy.of(PortPolicy.DEFAULT_ALLOWED, List.of()))
                .build());
        assertThatCode(() -> redisOpen.validateUrl("https://hooks.example.com:6379/"))
                .doesNotThrowAnyException();
    }

    @ParameterizedTest(name = "port entry \"{0}\" is refused")
    @ValueSource(strings = {"0", "65536", "100-10", "http", "80,443", "-5", ""})
    void rejectsInvalidPortEntriesNamingThem(String entry) {
        assertThatThrownBy(() -> PortPolicy.of(List.of(entry), List.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("postbox.http.allowed-ports entry '" + entry + "' is invalid");
    }

    @ParameterizedTest(name = "{0} is refused without echoing its credentials")
    @ValueSource(
            strings = {
                "https://alice:pa55word@hooks.example.com/in",
                "https://alice@hooks.example.com/in",
                "https://:pa55word@hooks.example.com/in?token=t0ken"
            })
    void refusesUrlsWithCredentials(String url) {
        assertThatThrownBy(() -> defaults.validateUrl(url))
                .isInstanceOf(ForbiddenDestinationException.class)
                .hasMessageContaining("https://hooks.example.com/in")
                .hasMessageContaining("carries credentials")
                .message()
                .doesNotContain("alice")
                .doesNotContain("pa55word")
                .doesNotContain("t0ken");
    }

    @Test
    void anUnparsableUrlIsShownWithoutItsQueryOrCredentials() {
        assertThatThrownBy(() -> defaults.validateUrl("ftp://alice:pa55word@files.example.com/x?token=t0ken"))
                .isInstanceOf(ForbiddenDestinationException.class)
                .hasMessageContaining("'ftp://files.example.com/x?[redacted]' is not a valid http or https URL");
    }

    @Test
    void redactedUrlsKeepSchemeHostPortAndPathOnly() {
        assertThat(RedactedUrl.of("https://u:p@hooks.example.com:8443/in/x?token=t#f"))
                .isEqualTo("https://hooks.example.com:8443/in/x?[redacted]");
        assertThat(RedactedUrl.of("https://hooks.example.com/in")).isEqualTo("https://hooks.example.com/in");
        assertThat(RedactedUrl.of("https://hooks.example.com/in#frag")).isEqualTo("https://hooks.example.com/in");
        assertThat(RedactedUrl.of("not a url ?secret=1")).isEqualTo("not a url ?[redacted]");
        assertThat(RedactedUrl.of("gopher://user:pw@h/x#y?z")).isEqualTo("gopher://h/x");
    }

    @Test
    void rejectsInvalidAllowListEntriesNamingThem() {
        assertThatThrownBy(() -> SsrfPolicy.custom().allow("10.0.0.0/33"))
                .hasMessageContaining("'10.0.0.0/33' is not a valid CIDR");
        assertThatThrownBy(() -> SsrfPolicy.custom().allow("fe80::zz/10"))
                .hasMessageContaining("'fe80::zz/10' is not a valid CIDR");
        assertThatThrownBy(() -> SsrfPolicy.custom().allow("not a host"))
                .hasMessageContaining("'not a host' is neither a CIDR");
    }

    @Test
    void refusesALiteralForbiddenUrlNamingTheUrlAndTheFixButNotTheQuery() {
        assertThatThrownBy(() -> defaults.validateUrl("http://127.0.0.1:8080/hook?token=s3cr3t"))
                .isInstanceOfSatisfying(ForbiddenDestinationException.class, e -> {
                    assertThat(e.verdict()).isNotNull();
                    assertThat(e.verdict().category()).isEqualTo(AddressCategory.LOOPBACK);
                })
                .hasMessageContaining("http://127.0.0.1:8080/hook")
                .hasMessageContaining("loopback")
                .hasMessageContaining("add it to postbox.http.allow-list (e.g. 127.0.0.1/32)")
                .message()
                .doesNotContain("s3cr3t");
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "http://169.254.169.254/latest/meta-data/",
                "http://[::ffff:169.254.169.254]/",
                "http://[::1]:8080/",
                "https://10.0.0.1/hook",
                "http://[fd00:ec2::254]/",
                "http://[2002:7f00:1::]/",
                "http://0.0.0.0/"
            })
    void refusesLiteralForbiddenAddresses(String url) {
        assertThatThrownBy(() -> defaults.validateUrl(url))
                .isInstanceOf(ForbiddenDestinationException.class)
                .hasMessageContaining("postbox.http.allow-list");
    }

    @ParameterizedTest
    @ValueSource(strings = {"http://2130706433/", "http://0x7f.1/", "http://127.1/", "http://0177.0.0.1/"})
    void refusesAmbiguousNumericHosts(String url) {
        assertThatThrownBy(() -> defaults.validateUrl(url))
                .isInstanceOf(ForbiddenDestinationException.class)
                .hasMessageContaining("non-canonical numeric IP address");
    }

    @Test
    void refusesLocalhostNamesWithoutResolving() {
        assertThatThrownBy(() -> defaults.validateUrl("http://localhost:8080/hook"))
                .hasMessageContaining("'localhost', a loopback name")
                .hasMessageContaining("postbox.http.allow-list");
        assertThatThrownBy(() -> defaults.validateUrl("http://api.localhost/")).hasMessageContaining("loopback name");
    }

    @Test
    void refusesNonHttpUrlsAndPlainHttpWhenHttpsIsRequired() {
        SsrfGuard httpsOnly = SsrfGuard.of(SsrfPolicy.custom().httpsOnly(true).build());

        assertThatThrownBy(() -> defaults.validateUrl("ftp://example.com/"))
                .hasMessageContaining("not a valid http or https URL");
        assertThatThrownBy(() -> defaults.validateUrl("not a url"))
                .hasMessageContaining("not a valid http or https URL");
        assertThatThrownBy(() -> httpsOnly.validateUrl("http://hooks.example.com/"))
                .hasMessageContaining("uses plain http but postbox.http.https-only is set");
        assertThatCode(() -> httpsOnly.validateUrl("https://hooks.example.com/"))
                .doesNotThrowAnyException();
    }

    @Test
    void acceptsPublicAndAllowListedUrlsWithoutDns() {
        SsrfGuard guard = SsrfGuard.of(
                SsrfPolicy.custom().allow("127.0.0.1/32").allow("localhost").build());

        assertThatCode(() -> defaults.validateUrl("https://hooks.example.com/x?y=1"))
                .doesNotThrowAnyException();
        assertThatCode(() -> defaults.validateUrl("http://93.184.215.14/")).doesNotThrowAnyException();
        assertThatCode(() -> guard.validateUrl("http://127.0.0.1:8080/")).doesNotThrowAnyException();
        assertThatCode(() -> guard.validateUrl("http://localhost:8080/")).doesNotThrowAnyException();
    }

    @Test
    void guardedDnsRefusesANameResolvingToAnyForbiddenAddress() {
        Dns fake = fakeDns(Map.of(
                "evil.test", List.of(ip("127.0.0.1")),
                "mixed.test", List.of(ip("93.184.215.14"), ip("10.0.0.1")),
                "public.test", List.of(ip("93.184.215.14"))));
        Dns guarded = defaults.dns(fake);

        assertThatThrownBy(() -> guarded.lookup("evil.test"))
                .isInstanceOf(UnknownHostException.class)
                .hasMessageContaining("refused to resolve evil.test: 127.0.0.1 is a loopback address");
        assertThatThrownBy(() -> guarded.lookup("mixed.test"))
                .hasMessageContaining("10.0.0.1 is a private-network address");
        assertThat(lookup(guarded, "public.test")).containsExactly(ip("93.184.215.14"));
    }

    @Test
    void guardedDnsTrustsAllowListedNames() {
        SsrfGuard guard =
                SsrfGuard.of(SsrfPolicy.custom().allow("billing.internal").build());
        Dns guarded = guard.dns(fakeDns(Map.of("billing.internal", List.of(ip("10.1.1.1")))));

        assertThat(lookup(guarded, "billing.internal")).containsExactly(ip("10.1.1.1"));
    }

    @Test
    void guardedSocketsRefuseToConnectToAForbiddenAddress() throws IOException {
        try (ServerSocket listening = new ServerSocket(0, 1, ip("127.0.0.1"));
                Socket socket = defaults.socketFactory().createSocket()) {
            InetSocketAddress target = new InetSocketAddress(ip("127.0.0.1"), listening.getLocalPort());

            assertThatThrownBy(() -> socket.connect(target, 1_000))
                    .isInstanceOf(ConnectException.class)
                    .hasMessageContaining("refused to connect: 127.0.0.1 is a loopback address");
            assertThat(socket.isConnected()).isFalse();
        }
    }

    @Test
    void guardedSocketsConnectToAnAllowListedAddress() throws IOException {
        SsrfGuard guard = SsrfGuard.of(SsrfPolicy.custom().allow("127.0.0.1/32").build());
        try (ServerSocket listening = new ServerSocket(0, 1, ip("127.0.0.1"));
                Socket socket = guard.socketFactory().createSocket()) {
            socket.connect(new InetSocketAddress(ip("127.0.0.1"), listening.getLocalPort()), 1_000);

            assertThat(socket.isConnected()).isTrue();
        }
    }

    public static Dns fakeDns(Map<String, List<InetAddress>> answers) {
        return hostname -> {
            List<InetAddress> answer = answers.get(hostname);
            if (answer == null) {
                throw new UnknownHostException("no fake answer for " + hostname);
            }
            return answer;
        };
    }

    private static List<InetAddress> lookup(Dns dns, String host) {
        try {
            return dns.lookup(host);
        } catch (UnknownHostException e) {
            throw new AssertionError(e);
        }
    }
}
