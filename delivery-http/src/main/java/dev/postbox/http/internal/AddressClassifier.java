package dev.postbox.http.internal;

import dev.postbox.http.ssrf.AddressCategory;
import java.net.InetAddress;
import java.util.List;

/**
 * Classifies an IP address into an {@link AddressCategory}, looking through IPv6 forms that embed an
 * IPv4 address (IPv4-mapped, IPv4-compatible, NAT64, 6to4, Teredo) so that, for example, {@code
 * ::ffff:127.0.0.1} or {@code 2002:7f00:1::} is recognised as loopback.
 *
 * <p>Ranges are checked in order, most specific first (a metadata address before its link-local
 * range).
 */
public final class AddressClassifier {

    /** One classification result: the category and, for embedded forms, how it was found. */
    public record Classification(AddressCategory category, String explanation) {}

    private record Range(Cidr cidr, AddressCategory category) {
        static Range of(String cidr, AddressCategory category) {
            return new Range(Cidr.parse(cidr), category);
        }
    }

    private static final List<Range> IPV4 = List.of(
            Range.of("0.0.0.0/32", AddressCategory.UNSPECIFIED),
            Range.of("0.0.0.0/8", AddressCategory.RESERVED),
            Range.of("10.0.0.0/8", AddressCategory.PRIVATE),
            Range.of("100.100.100.200/32", AddressCategory.CLOUD_METADATA), // Alibaba Cloud
            Range.of("100.64.0.0/10", AddressCategory.SHARED_CGNAT),
            Range.of("127.0.0.0/8", AddressCategory.LOOPBACK),
            Range.of("168.63.129.16/32", AddressCategory.CLOUD_METADATA), // Azure wire server
            Range.of("169.254.169.254/32", AddressCategory.CLOUD_METADATA), // AWS, GCP, Azure, OpenStack
            Range.of("169.254.170.2/32", AddressCategory.CLOUD_METADATA), // AWS ECS task metadata
            Range.of("169.254.0.0/16", AddressCategory.LINK_LOCAL),
            Range.of("172.16.0.0/12", AddressCategory.PRIVATE),
            Range.of("192.0.0.0/24", AddressCategory.RESERVED), // IETF protocol assignments
            Range.of("192.0.2.0/24", AddressCategory.DOCUMENTATION),
            Range.of("192.88.99.0/24", AddressCategory.RESERVED), // deprecated 6to4 relay anycast
            Range.of("192.168.0.0/16", AddressCategory.PRIVATE),
            Range.of("198.18.0.0/15", AddressCategory.BENCHMARKING),
            Range.of("198.51.100.0/24", AddressCategory.DOCUMENTATION),
            Range.of("203.0.113.0/24", AddressCategory.DOCUMENTATION),
            Range.of("224.0.0.0/4", AddressCategory.MULTICAST),
            Range.of("255.255.255.255/32", AddressCategory.BROADCAST),
            Range.of("240.0.0.0/4", AddressCategory.RESERVED));

    private static final List<Range> IPV6 = List.of(
            Range.of("::/128", AddressCategory.UNSPECIFIED),
            Range.of("::1/128", AddressCategory.LOOPBACK),
            Range.of("fd00:ec2::254/128", AddressCategory.CLOUD_METADATA), // AWS IMDS over IPv6
            Range.of("64:ff9b:1::/48", AddressCategory.PRIVATE), // local-use NAT64 (RFC 8215)
            Range.of("100::/64", AddressCategory.RESERVED), // discard-only
            Range.of("2001:2::/48", AddressCategory.BENCHMARKING),
            Range.of("2001:db8::/32", AddressCategory.DOCUMENTATION),
            Range.of("3fff::/20", AddressCategory.DOCUMENTATION),
            Range.of("2001::/23", AddressCategory.RESERVED), // IETF protocol assignments (after Teredo)
            Range.of("fc00::/7", AddressCategory.PRIVATE),
            Range.of("fe80::/10", AddressCategory.LINK_LOCAL),
            Range.of("fec0::/10", AddressCategory.PRIVATE), // deprecated site-local
            Range.of("ff00::/8", AddressCategory.MULTICAST));

    private static final Cidr IPV4_MAPPED = Cidr.parse("::ffff:0:0/96");
    private static final Cidr IPV4_COMPATIBLE = Cidr.parse("::/96");
    private static final Cidr NAT64 = Cidr.parse("64:ff9b::/96");
    private static final Cidr SIX_TO_FOUR = Cidr.parse("2002::/16");
    private static final Cidr TEREDO = Cidr.parse("2001::/32");

    private AddressClassifier() {}

    /** Classifies an address. */
    public static Classification classify(InetAddress address) {
        byte[] bytes = address.getAddress();
        return bytes.length == 4 ? classifyIpv4(bytes) : classifyIpv6(bytes);
    }

    private static Classification classifyIpv4(byte[] bytes) {
        for (Range range : IPV4) {
            if (range.cidr().contains(bytes)) {
                return new Classification(range.category(), "");
            }
        }
        return new Classification(AddressCategory.PUBLIC, "");
    }

    private static Classification classifyIpv6(byte[] bytes) {
        if (IPV4_MAPPED.contains(bytes)) {
            return embedded("an IPv4-mapped form", slice(bytes, 12));
        }
        if (NAT64.contains(bytes)) {
            return embedded("a NAT64 (64:ff9b::/96) form", slice(bytes, 12));
        }
        if (SIX_TO_FOUR.contains(bytes)) {
            return embedded("a 6to4 (2002::/16) form", slice(bytes, 2));
        }
        if (TEREDO.contains(bytes)) {
            return teredo(bytes);
        }
        for (Range range : IPV6) {
            if (range.cidr().contains(bytes)) {
                return new Classification(range.category(), "");
            }
        }
        if (IPV4_COMPATIBLE.contains(bytes)) {
            Classification inner = embedded("a deprecated IPv4-compatible form", slice(bytes, 12));
            return inner.category() == AddressCategory.PUBLIC
                    ? new Classification(AddressCategory.RESERVED, "a deprecated IPv4-compatible address (::/96)")
                    : inner;
        }
        return new Classification(AddressCategory.PUBLIC, "");
    }

    /** Teredo (2001::/32) embeds the server's IPv4 in bits 32–63 and the client's, inverted, in the last 32. */
    private static Classification teredo(byte[] bytes) {
        Classification server = embedded("a Teredo form embedding server", slice(bytes, 4));
        if (server.category() != AddressCategory.PUBLIC) {
            return server;
        }
        byte[] client = slice(bytes, 12);
        for (int i = 0; i < client.length; i++) {
            client[i] = (byte) ~client[i];
        }
        return embedded("a Teredo form embedding client", client);
    }

    private static Classification embedded(String form, byte[] ipv4) {
        Classification inner = classifyIpv4(ipv4);
        String text = IpLiterals.format(ipv4);
        return new Classification(inner.category(), form + " of " + text);
    }

    private static byte[] slice(byte[] bytes, int from) {
        byte[] ipv4 = new byte[4];
        System.arraycopy(bytes, from, ipv4, 0, 4);
        return ipv4;
    }

    /** Formats an address for messages without any reverse lookup. */
    public static String text(InetAddress address) {
        return IpLiterals.format(address.getAddress());
    }
}
