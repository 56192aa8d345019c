package dev.postbox.http.ssrf;

import dev.postbox.Require;
import dev.postbox.http.internal.Cidr;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * What the {@link SsrfGuard} lets through besides public addresses: an allow-list of CIDRs and host
 * names (for tests and internal endpoints), and whether plain http is accepted.
 *
 * <p>Allow-list entries are either a CIDR ({@code 10.1.0.0/16}, {@code 127.0.0.1/32}, a bare address
 * meaning a single host) or a host name ({@code hooks.internal}, or {@code *.corp.example} for every
 * subdomain). A CIDR entry permits connections to addresses inside it; a host name entry trusts the
 * name, whatever it resolves to, except link-local, metadata and unspecified addresses, which need
 * an entry of the exact address. Cloud metadata addresses (169.254.169.254…) are only permitted by an
 * exact single-host entry, never by a wider range.
 *
 * <p>Immutable; build with {@link #custom()} or take {@link #ofDefaults()}.
 */
public final class SsrfPolicy {

    private static final Pattern HOST_NAME =
            Pattern.compile("(\\*\\.)?[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*");

    private static final SsrfPolicy DEFAULTS = new SsrfPolicy(List.of(), Set.of(), false, PortPolicy.ofDefaults());

    private final List<Cidr> allowedNetworks;
    private final Set<String> allowedHosts;
    private final boolean httpsOnly;
    private final PortPolicy ports;

    private SsrfPolicy(List<Cidr> allowedNetworks, Set<String> allowedHosts, boolean httpsOnly, PortPolicy ports) {
        this.allowedNetworks = allowedNetworks;
        this.allowedHosts = allowedHosts;
        this.httpsOnly = httpsOnly;
        this.ports = ports;
    }

    /** Nothing allow-listed; http and https accepted; the {@linkplain PortPolicy#ofDefaults() default ports}. */
    public static SsrfPolicy ofDefaults() {
        return DEFAULTS;
    }

    /** A builder starting from the defaults. */
    public static Builder custom() {
        return new Builder();
    }

    /** Whether only https URLs are accepted. */
    public boolean httpsOnly() {
        return httpsOnly;
    }

    /** The destination ports allowed, for every destination (allow-listed ones too). */
    public PortPolicy ports() {
        return ports;
    }

    /** The allow-listed host names (lower case; {@code *.} prefix for subdomain wildcards). */
    public Set<String> allowedHosts() {
        return allowedHosts;
    }

    /** The allow-listed networks as CIDR text. */
    public List<String> allowedNetworks() {
        return allowedNetworks.stream().map(Cidr::toString).toList();
    }

    /** Whether the host name is allow-listed, exactly or by a {@code *.} wildcard. */
    public boolean allowsHost(String host) {
        String name = normalizeHost(host);
        if (allowedHosts.contains(name)) {
            return true;
        }
        for (int dot = name.indexOf('.'); dot >= 0; dot = name.indexOf('.', dot + 1)) {
            if (allowedHosts.contains("*" + name.substring(dot))) {
                return true;
            }
        }
        return false;
    }

    /** The allow-listed network containing the address, if any. */
    Optional<Cidr> allowingNetwork(InetAddress address, boolean requireSingleHost) {
        return allowedNetworks.stream()
                .filter(cidr -> cidr.contains(address))
                .filter(cidr -> !requireSingleHost || cidr.isSingleHost())
                .findFirst();
    }

    private static String normalizeHost(String host) {
        String name = host.strip().toLowerCase(Locale.ROOT);
        return name.endsWith(".") ? name.substring(0, name.length() - 1) : name;
    }

    @Override
    public String toString() {
        return "SsrfPolicy[allowedNetworks=" + allowedNetworks + ", allowedHosts=" + allowedHosts + ", httpsOnly="
                + httpsOnly + ", ports=" + ports + "]";
    }

    /** Builder of {@link SsrfPolicy}; each method validates its argument. */
    public static final class Builder {
        private final List<Cidr> allowedNetworks = new ArrayList<>();
        private final Set<String> allowedHosts = new LinkedHashSet<>();
        private boolean httpsOnly;
        private PortPolicy ports = PortPolicy.ofDefaults();

        private Builder() {}

        /**
         * Allow-lists a CIDR, a bare IP address or a host name ({@code *.} prefix for subdomains).
         *
         * @throws IllegalArgumentException naming the entry when it is none of these
         */
        public Builder allow(String entry) {
            Require.notNull(entry, "allowList entry");
            String trimmed = entry.strip();
            Optional<Cidr> cidr = Cidr.tryParse(trimmed);
            if (cidr.isPresent()) {
                allowedNetworks.add(cidr.get());
                return this;
            }
            if (trimmed.indexOf('/') >= 0 || trimmed.indexOf(':') >= 0) {
                throw new IllegalArgumentException("allowList entry '" + entry
                        + "' is not a valid CIDR (expected e.g. 10.0.0.0/8, 127.0.0.1/32 or fd00::/8)");
            }
            String host = normalizeHost(trimmed);
            if (!HOST_NAME.matcher(host).matches()) {
                throw new IllegalArgumentException("allowList entry '" + entry
                        + "' is neither a CIDR (e.g. 10.0.0.0/8) nor a host name (e.g. hooks.internal or"
                        + " *.corp.example)");
            }
            allowedHosts.add(host);
            return this;
        }

        /** Allow-lists every entry; see {@link #allow(String)}. */
        public Builder allowList(Collection<String> entries) {
            Require.notNull(entries, "allowList").forEach(this::allow);
            return this;
        }

        /** When true, plain http URLs are refused. Default false. */
        public Builder httpsOnly(boolean httpsOnly) {
            this.httpsOnly = httpsOnly;
            return this;
        }

        /** The destination ports allowed. Default {@link PortPolicy#ofDefaults()}. */
        public Builder ports(PortPolicy ports) {
            this.ports = Require.notNull(ports, "ports");
            return this;
        }

        /** Builds the immutable policy. */
        public SsrfPolicy build() {
            return new SsrfPolicy(List.copyOf(allowedNetworks), Set.copyOf(allowedHosts), httpsOnly, ports);
        }
    }
}
