package dev.postbox.http.ssrf;

/** What kind of destination an IP address is, as far as the {@link SsrfGuard} is concerned. */
public enum AddressCategory {
    /** A globally routable address: allowed. */
    PUBLIC("a public address"),
    /** 127.0.0.0/8, ::1. */
    LOOPBACK("a loopback address"),
    /** RFC 1918 (10/8, 172.16/12, 192.168/16), unique local fc00::/7, deprecated site-local fec0::/10. */
    PRIVATE("a private-network address"),
    /** 169.254.0.0/16, fe80::/10. */
    LINK_LOCAL("a link-local address"),
    /** 100.64.0.0/10, carrier-grade NAT shared address space (RFC 6598). */
    SHARED_CGNAT("a carrier-grade NAT shared address (100.64.0.0/10)"),
    /** 224.0.0.0/4, ff00::/8. */
    MULTICAST("a multicast address"),
    /** 0.0.0.0, ::. */
    UNSPECIFIED("the unspecified address"),
    /** 255.255.255.255. */
    BROADCAST("the limited broadcast address"),
    /** 192.0.2/24, 198.51.100/24, 203.0.113/24, 2001:db8::/32, 3fff::/20. */
    DOCUMENTATION("a documentation-only address"),
    /** 198.18.0.0/15, 2001:2::/48. */
    BENCHMARKING("a benchmarking address (198.18.0.0/15)"),
    /** Cloud instance metadata services, e.g. 169.254.169.254, fd00:ec2::254. */
    CLOUD_METADATA("a cloud metadata service address"),
    /** Reserved or special-purpose ranges: 240/4, 0/8, 192.0.0/24, ::/96, 100::/64, 2001::/23… */
    RESERVED("a reserved or special-purpose address");

    /**
     * Whether reaching this kind of address through a host name needs an allow-list entry of the
     * exact address: link-local (where cloud metadata and other host services live), cloud metadata
     * and the unspecified address (which connects to the local host). An allow-listed name or a
     * wider range is not enough.
     */
    public boolean needsExactEntry() {
        return this == LINK_LOCAL || this == CLOUD_METADATA || this == UNSPECIFIED;
    }

    private final String description;

    AddressCategory(String description) {
        this.description = description;
    }

    /** A short phrase such as "a loopback address", used in refusal messages. */
    public String description() {
        return description;
    }
}
