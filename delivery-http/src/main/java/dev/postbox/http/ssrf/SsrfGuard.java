package dev.postbox.http.ssrf;

import dev.postbox.Require;
import dev.postbox.http.RedactedUrl;
import dev.postbox.http.internal.AddressClassifier;
import dev.postbox.http.internal.AddressClassifier.Classification;
import dev.postbox.http.internal.GuardedDns;
import dev.postbox.http.internal.GuardedSocketFactory;
import dev.postbox.http.internal.IpLiterals;
import java.net.InetAddress;
import java.net.Proxy;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import javax.net.SocketFactory;
import okhttp3.Dns;
import okhttp3.HttpUrl;
import okhttp3.OkHttpClient;

/**
 * Server-side request forgery guard: Postbox delivers only to public addresses unless the {@link
 * SsrfPolicy} allow-lists a destination.
 *
 * <p>Three checks, each needed:
 *
 * <ol>
 *   <li>{@link #validateUrl(String) At enqueue time}, without DNS: the scheme, and a literal
 *       forbidden address ({@code http://169.254.169.254/}) is refused with an error that names the
 *       fix.
 *   <li>{@link #dns(Dns) At resolution}: a host name resolving to any forbidden address is refused.
 *   <li>{@link #socketFactory() At connect time}: the address actually connected to is checked
 *       again, which catches IP literals (OkHttp does not resolve them) and DNS rebinding.
 * </ol>
 *
 * {@link #configure(OkHttpClient.Builder)} installs the last two, disables redirects and proxies.
 * Forbidden: loopback, private (RFC 1918, fc00::/7), link-local, CGNAT, multicast, unspecified,
 * broadcast, documentation, benchmarking, cloud metadata and reserved ranges, and IPv6 forms that
 * embed a forbidden IPv4 address (IPv4-mapped, IPv4-compatible, NAT64, 6to4, Teredo).
 *
 * <p>Immutable and thread-safe.
 */
public final class SsrfGuard {

    /** The configuration property that allow-lists destinations, named in refusal messages. */
    public static final String ALLOW_LIST_PROPERTY = "postbox.http.allow-list";

    /** The configuration property that restricts delivery to https, named in refusal messages. */
    public static final String HTTPS_ONLY_PROPERTY = "postbox.http.https-only";

    private final SsrfPolicy policy;
    private final SocketFactory guardedSockets;

    /**
     * URLs that passed {@link #validateUrl} (the policy is fixed, and the check reads nothing else):
     * each delivery validates its endpoint's URL again, and parsing it is most of the check's cost.
     */
    private final Set<String> validUrls = ConcurrentHashMap.newKeySet();

    private static final int VALID_URLS_KEPT = 4_096;

    private SsrfGuard(SsrfPolicy policy) {
        this.policy = policy;
        this.guardedSockets = new GuardedSocketFactory(this);
    }

    /** A guard enforcing {@code policy}. */
    public static SsrfGuard of(SsrfPolicy policy) {
        return new SsrfGuard(Require.notNull(policy, "policy"));
    }

    /** The policy enforced. */
    public SsrfPolicy policy() {
        return policy;
    }

    /** Decides whether Postbox may connect to {@code address}, considering the CIDR allow-list. */
    public AddressVerdict check(InetAddress address) {
        Require.notNull(address, "address");
        Classification classification = AddressClassifier.classify(address);
        AddressCategory category = classification.category();
        String what = describe(address, classification);
        if (category == AddressCategory.PUBLIC) {
            return new AddressVerdict(address, category, true, what);
        }
        boolean metadata = category == AddressCategory.CLOUD_METADATA;
        Optional<String> allowedBy = policy.allowingNetwork(address, metadata).map(Object::toString);
        if (allowedBy.isPresent()) {
            return new AddressVerdict(address, category, true, what + ", allow-listed by " + allowedBy.get());
        }
        return new AddressVerdict(address, category, false, what);
    }

    /**
     * Decides whether Postbox may connect to {@code address}, which the name {@code host} resolved
     * to. An allow-listed host name is trusted whatever it resolves to, except for the addresses no
     * name may open: link-local, cloud metadata and unspecified ones ({@link
     * AddressCategory#needsExactEntry()}). Reached through any name, those are allowed only when the
     * allow-list holds the exact address ({@code 169.254.169.254/32}), never by the name or by a
     * range. Otherwise as {@link #check(InetAddress)}.
     */
    public AddressVerdict check(String host, InetAddress address) {
        Require.notNull(host, "host");
        AddressVerdict verdict = check(address);
        if (verdict.category().needsExactEntry()) {
            Optional<String> exact = policy.allowingNetwork(address, true).map(Object::toString);
            String what = describe(address, AddressClassifier.classify(address));
            if (exact.isPresent()) {
                return new AddressVerdict(address, verdict.category(), true, what + ", allow-listed by " + exact.get());
            }
            String through = policy.allowsHost(host)
                    ? ", host " + host + " is allow-listed, but"
                    : ", the address of " + host + ";";
            return new AddressVerdict(
                    address,
                    verdict.category(),
                    false,
                    what + through + " link-local, metadata and unspecified addresses are reached only when you"
                            + " allow-list the exact address (" + exactEntry(address) + ")");
        }
        if (verdict.forbidden() && policy.allowsHost(host)) {
            return new AddressVerdict(
                    address, verdict.category(), true, verdict.reason() + ", host " + host + " is allow-listed");
        }
        return verdict;
    }

    private static String describe(InetAddress address, Classification classification) {
        String text = AddressClassifier.text(address);
        AddressCategory category = classification.category();
        return classification.explanation().isEmpty()
                ? text + " is " + category.description()
                : text + " is " + classification.explanation() + ", " + category.description();
    }

    /** The allow-list entry naming exactly {@code address}: {@code a.b.c.d/32} or {@code x::y/128}. */
    static String exactEntry(InetAddress address) {
        return AddressClassifier.text(address) + (address.getAddress().length == 4 ? "/32" : "/128");
    }

    /**
     * Validates an endpoint URL at enqueue time, without any DNS lookup: it must be http(s) (https
     * when the policy says so), carry no credentials (user info), use a port the {@link PortPolicy} allows (whatever the host, allow-listed
     * or not) and must not name a forbidden address literally. Host names are checked
     * when they are resolved and connected to, at delivery time, since DNS answers change.
     *
     * @throws ForbiddenDestinationException naming the URL (as {@link RedactedUrl}) and the fix; also
     *     for a URL with credentials (user info), which Postbox refuses
     */
    public void validateUrl(String url) {
        Require.notNull(url, "url");
        if (validUrls.contains(url)) {
            return;
        }
        check(url);
        if (validUrls.size() >= VALID_URLS_KEPT) {
            validUrls.clear();
        }
        validUrls.add(url);
    }

    private void check(String url) {
        HttpUrl parsed = HttpUrl.parse(url.strip());
        if (parsed == null) {
            throw new ForbiddenDestinationException(
                    "Endpoint URL '" + RedactedUrl.of(url) + "' is not a valid http or https URL", null);
        }
        String shown = RedactedUrl.of(parsed);
        if (!parsed.username().isEmpty() || !parsed.password().isEmpty()) {
            throw new ForbiddenDestinationException(
                    "Endpoint URL " + shown + " carries credentials (user info before '@'); Postbox refuses them"
                            + " because URLs end up in logs and admin pages: remove them from the URL and send the"
                            + " credential as a header instead (e.g. Endpoint.Builder.header(\"Authorization\","
                            + " ...) or postbox.http.endpoints.<name>.headers.Authorization)",
                    null);
        }
        if (policy.httpsOnly() && !parsed.isHttps()) {
            throw new ForbiddenDestinationException(
                    "Endpoint URL " + shown + " uses plain http but " + HTTPS_ONLY_PROPERTY
                            + " is set: use an https URL",
                    null);
        }
        int port = parsed.port();
        if (!policy.ports().allows(port)) {
            throw new ForbiddenDestinationException(
                    "Endpoint URL " + shown + " uses " + policy.ports().refusal(port), null);
        }
        String host = parsed.host();
        if (policy.allowsHost(host)) {
            return;
        }
        String bareHost = host.endsWith(".") ? host.substring(0, host.length() - 1) : host;
        if (IpLiterals.isAmbiguousNumericHost(bareHost)) {
            throw new ForbiddenDestinationException(
                    "Endpoint URL " + shown + " has the host '" + host + "', a non-canonical numeric IP address"
                            + " that resolvers interpret differently; write the address as a dotted quad"
                            + " (e.g. 93.184.215.14) or use a host name",
                    null);
        }
        if (isLocalhostName(bareHost)) {
            throw new ForbiddenDestinationException(
                    "Endpoint URL " + shown + " points to '" + host + "', a loopback name; Postbox refuses"
                            + " loopback, private and metadata destinations (SSRF guard). If this endpoint is"
                            + " intentionally internal, add it to " + ALLOW_LIST_PROPERTY + " (e.g. " + host
                            + ")",
                    null);
        }
        Optional<InetAddress> literal = IpLiterals.parse(bareHost);
        if (literal.isPresent()) {
            AddressVerdict verdict = check(literal.get());
            if (verdict.forbidden()) {
                throw refusal(shown, verdict);
            }
        }
    }

    /** The exception {@link #validateUrl(String)} throws for a forbidden address. */
    static ForbiddenDestinationException refusal(String shownUrl, AddressVerdict verdict) {
        String example = exactEntry(verdict.address());
        return new ForbiddenDestinationException(
                "Endpoint URL " + shownUrl + " points to " + verdict.reason() + "; Postbox refuses loopback,"
                        + " private, link-local and metadata destinations (SSRF guard). If this endpoint is"
                        + " intentionally internal, add it to " + ALLOW_LIST_PROPERTY + " (e.g. " + example + ")",
                verdict);
    }

    /** A resolver that delegates to {@code delegate} and refuses names resolving to a forbidden address. */
    public Dns dns(Dns delegate) {
        return new GuardedDns(this, Require.notNull(delegate, "delegate"));
    }

    /** A guarded system resolver. */
    public Dns dns() {
        return dns(Dns.SYSTEM);
    }

    /**
     * A socket factory whose sockets refuse to connect to a forbidden address (the connect-time check).
     * It applies the address rules and the CIDR allow-list; {@link #configure(OkHttpClient.Builder)}
     * bypasses it for allow-listed host names.
     */
    public SocketFactory socketFactory() {
        return guardedSockets;
    }

    /**
     * Installs the guard on an OkHttp client: guarded DNS over {@code delegate}, connect-time checks,
     * no proxy, no redirects.
     */
    public OkHttpClient.Builder configure(OkHttpClient.Builder builder, Dns delegate) {
        return builder.dns(dns(delegate))
                .socketFactory(guardedSockets)
                .addInterceptor(chain -> policy.allowsHost(chain.request().url().host())
                        ? chain.withSocketFactory(SocketFactory.getDefault()).proceed(chain.request())
                        : chain.proceed(chain.request()))
                .proxy(Proxy.NO_PROXY)
                .followRedirects(false)
                .followSslRedirects(false);
    }

    /** {@link #configure(OkHttpClient.Builder, Dns)} with the system resolver. */
    public OkHttpClient.Builder configure(OkHttpClient.Builder builder) {
        return configure(builder, Dns.SYSTEM);
    }

    private static boolean isLocalhostName(String host) {
        String name = host.toLowerCase(Locale.ROOT);
        return name.equals("localhost") || name.endsWith(".localhost");
    }

    @Override
    public String toString() {
        return "SsrfGuard[" + policy + "]";
    }
}
