package dev.postbox.http.ssrf;

import static org.assertj.core.api.Assertions.assertThat;

import dev.postbox.http.RedactedUrl;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import net.jqwik.api.constraints.StringLength;

/**
 * The SSRF guard's URL and address checks under random input (issue 12): a URL is accepted or
 * refused with {@link ForbiddenDestinationException}, nothing else escapes; an accepted URL meets
 * every rule; a refusal never shows the URL's password or query; no loopback, private, link-local or
 * unspecified address passes the default policy, judged by the JDK's own classification.
 */
class UrlGuardPropertiesTest {

    private static final String PASSWORD = "pw-Secret-17";
    private static final String QUERY_SECRET = "tok-Secret-42";

    private final SsrfGuard guard = SsrfGuard.of(SsrfPolicy.ofDefaults());

    @Property(tries = 3000)
    void arbitraryTextIsAcceptedOrRefusedWithForbiddenDestination(@ForAll @StringLength(max = 80) String url) {
        try {
            guard.validateUrl(url);
        } catch (ForbiddenDestinationException e) {
            assertThat(e.getMessage()).startsWith("Endpoint URL ");
        }
    }

    @Property(tries = 4000)
    void urlShapedInputMeetsEveryRuleOrIsRefusedWithoutShowingSecrets(@ForAll("urls") String url) {
        try {
            guard.validateUrl(url);
        } catch (ForbiddenDestinationException e) {
            assertThat(e.getMessage()).startsWith("Endpoint URL ").doesNotContain(PASSWORD, QUERY_SECRET);
            return;
        }
        okhttp3.HttpUrl parsed = okhttp3.HttpUrl.parse(url.strip());
        assertThat(parsed).as(url).isNotNull();
        assertThat(parsed.scheme()).isIn("http", "https");
        assertThat(parsed.username() + parsed.password())
                .as("user info of %s", url)
                .isEmpty();
        assertThat(PortPolicy.ofDefaults().allows(parsed.port()))
                .as("port of %s", url)
                .isTrue();
        assertThat(parsed.host()).as(url).isNotIn("localhost", "127.0.0.1", "::1", "0.0.0.0", "169.254.169.254");
        InetAddress literal = literal(parsed.host());
        if (literal != null) {
            assertThat(forbiddenByTheJdk(literal)).as("address of %s", url).isFalse();
        }
    }

    @Property(tries = 3000)
    void noLocalAddressPassesTheDefaultPolicy(@ForAll @Size(min = 4, max = 4) byte[] v4, @ForAll boolean mapped)
            throws UnknownHostException {
        InetAddress address = InetAddress.getByAddress(v4);
        AddressVerdict verdict = guard.check(address);
        if (forbiddenByTheJdk(address)) {
            assertThat(verdict.forbidden()).as(address.toString()).isTrue();
        }
        // whatever name resolved to it, a link-local or unspecified address needs its exact entry
        if (address.isLinkLocalAddress() || address.isAnyLocalAddress()) {
            assertThat(guard.check("allowed.example", address).forbidden()).isTrue();
        }
        assertThat(verdict.reason()).isNotBlank();
    }

    @Property(tries = 2000)
    void noLocalIpv6AddressPassesTheDefaultPolicy(@ForAll @Size(min = 16, max = 16) byte[] v6)
            throws UnknownHostException {
        InetAddress address = InetAddress.getByAddress(v6);
        if (forbiddenByTheJdk(address)) {
            assertThat(guard.check(address).forbidden()).as(address.toString()).isTrue();
        }
    }

    @Property(tries = 1000)
    void portPolicyEntriesBuildOrFailNamingTheEntry(@ForAll("portEntries") List<String> allowed) {
        try {
            PortPolicy policy = PortPolicy.of(allowed, List.of());
            assertThat(policy.allowedPorts()).isNotNull();
        } catch (IllegalArgumentException e) {
            assertThat(allowed).anySatisfy(entry -> assertThat(e.getMessage()).contains(entry));
        }
    }

    private static boolean forbiddenByTheJdk(InetAddress a) {
        return a.isLoopbackAddress() || a.isAnyLocalAddress() || a.isLinkLocalAddress() || a.isSiteLocalAddress();
    }

    private static InetAddress literal(String host) {
        boolean v4 = host.matches("[0-9]{1,3}(\\.[0-9]{1,3}){3}");
        boolean v6 = host.contains(":");
        if (!v4 && !v6) {
            return null;
        }
        try {
            return InetAddress.getByName(host); // a literal: no lookup
        } catch (UnknownHostException e) {
            return null;
        }
    }

    @Provide
    Arbitrary<String> urls() {
        Arbitrary<String> scheme = Arbitraries.of("http://", "https://", "ftp://", "HTTP://", "", "//", "http:/");
        Arbitrary<String> userInfo = Arbitraries.of("", "", "", "user@", "user:" + PASSWORD + "@", ":@");
        Arbitrary<String> v4 = Arbitraries.integers()
                .between(0, 255)
                .list()
                .ofSize(4)
                .map(p -> p.get(0) + "." + p.get(1) + "." + p.get(2) + "." + p.get(3));
        Arbitrary<String> host = Arbitraries.oneOf(
                Arbitraries.of(
                        "example.com",
                        "hooks.example.org.",
                        "localhost",
                        "LOCALHOST.",
                        "foo.localhost",
                        "127.1",
                        "2130706433",
                        "0x7f000001",
                        "0177.0.0.1",
                        "[::1]",
                        "[::ffff:127.0.0.1]",
                        "[fe80::1]",
                        "[fd00::1]",
                        "[2001:db8::1]",
                        "169.254.169.254",
                        "metadata.google.internal",
                        "0",
                        ""),
                v4);
        Arbitrary<String> port = Arbitraries.oneOf(
                Arbitraries.just(""), Arbitraries.integers().between(-1, 70_000).map(p -> ":" + p));
        Arbitrary<String> rest = Arbitraries.of("", "/", "/hook", "/a?" + "token=" + QUERY_SECRET, "#frag", "/%00");
        return Combinators.combine(scheme, userInfo, host, port, rest).as((s, u, h, p, r) -> s + u + h + p + r);
    }

    @Provide
    Arbitrary<List<String>> portEntries() {
        Arbitrary<String> entry = Arbitraries.oneOf(
                Arbitraries.integers().between(-5, 70_000).map(String::valueOf),
                Combinators.combine(
                                Arbitraries.integers().between(-5, 70_000),
                                Arbitraries.integers().between(-5, 70_000))
                        .as((a, b) -> a + "-" + b),
                Arbitraries.strings().ofMaxLength(6));
        return entry.list().ofMinSize(1).ofMaxSize(4);
    }

    @Property(tries = 500)
    void redactionNeverShowsTheQuery(@ForAll @IntRange(min = 1, max = 65_535) int port) {
        String shown = RedactedUrl.of("https://example.com:" + port + "/h?token=" + QUERY_SECRET);
        assertThat(shown).doesNotContain(QUERY_SECRET);
    }
}
