package dev.postbox.http.internal;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Strict parsing of IP address literals, guaranteed never to trigger a DNS lookup.
 *
 * <p>Only canonical dotted-quad IPv4 ({@code 127.0.0.1}) counts as an IPv4 literal. Other numeric
 * forms that some resolvers accept ({@code 2130706433}, {@code 127.1}, {@code 0177.0.0.1}) are
 * reported as {@linkplain #isAmbiguousNumericHost(String) ambiguous} so that callers can refuse them
 * instead of letting a resolver guess.
 */
public final class IpLiterals {

    private static final Pattern DOTTED_QUAD = Pattern.compile("(0|[1-9][0-9]{0,2})(\\.(0|[1-9][0-9]{0,2})){3}");
    private static final Pattern NUMERIC_LABEL = Pattern.compile("[0-9]+|0[xX][0-9a-fA-F]*");

    private IpLiterals() {}

    /**
     * Parses an IP literal: a canonical dotted quad, or IPv6 with or without brackets. IPv4-mapped
     * IPv6 forms stay {@link Inet6Address}es so that the embedding is visible to the classifier.
     */
    public static Optional<InetAddress> parse(String host) {
        String text = host.strip();
        if (text.startsWith("[") && text.endsWith("]")) {
            text = text.substring(1, text.length() - 1);
        }
        if (text.isEmpty()) {
            return Optional.empty();
        }
        if (DOTTED_QUAD.matcher(text).matches()) {
            return parseIpv4(text);
        }
        if (text.indexOf(':') >= 0) {
            return parseIpv6(text);
        }
        return Optional.empty();
    }

    /**
     * Whether a host that is not a canonical literal still looks numeric ({@code 2130706433}, {@code
     * 127.1}, {@code 0x7f.1}, {@code 010.0.0.1}): such hosts are interpreted differently by
     * different resolvers and are refused rather than guessed.
     */
    public static boolean isAmbiguousNumericHost(String host) {
        String text = host.strip();
        if (text.endsWith(".")) {
            text = text.substring(0, text.length() - 1);
        }
        if (text.isEmpty() || parse(text).isPresent()) {
            return false;
        }
        // As the WHATWG URL standard does: a host whose last label is a number is an IPv4 address.
        return NUMERIC_LABEL.matcher(text.substring(text.lastIndexOf('.') + 1)).matches();
    }

    /** Formats address bytes (4 or 16) as text; IPv6 in the RFC 5952 canonical form ({@code ::ffff:127.0.0.1}). */
    public static String format(byte[] address) {
        if (address.length == 4) {
            return (address[0] & 0xFF) + "." + (address[1] & 0xFF) + "." + (address[2] & 0xFF) + "."
                    + (address[3] & 0xFF);
        }
        if (address.length != 16) {
            throw new IllegalArgumentException("address must have 4 or 16 bytes, got " + address.length);
        }
        if (isIpv4Mapped(address)) {
            return "::ffff:" + format(java.util.Arrays.copyOfRange(address, 12, 16));
        }
        int[] groups = new int[8];
        for (int i = 0; i < 8; i++) {
            groups[i] = ((address[2 * i] & 0xFF) << 8) | (address[2 * i + 1] & 0xFF);
        }
        int bestStart = -1;
        int bestLength = 1; // RFC 5952: a single zero group is not compressed
        for (int i = 0; i < 8; ) {
            if (groups[i] != 0) {
                i++;
                continue;
            }
            int end = i;
            while (end < 8 && groups[end] == 0) {
                end++;
            }
            if (end - i > bestLength) {
                bestStart = i;
                bestLength = end - i;
            }
            i = end;
        }
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < 8; i++) {
            if (i == bestStart) {
                text.append("::");
                i += bestLength - 1;
                continue;
            }
            if (text.length() > 0 && text.charAt(text.length() - 1) != ':') {
                text.append(':');
            }
            text.append(Integer.toHexString(groups[i]));
        }
        return text.toString();
    }

    private static boolean isIpv4Mapped(byte[] address) {
        for (int i = 0; i < 10; i++) {
            if (address[i] != 0) {
                return false;
            }
        }
        return address[10] == (byte) 0xFF && address[11] == (byte) 0xFF;
    }

    private static Optional<InetAddress> parseIpv4(String text) {
        String[] parts = text.split("\\.");
        byte[] bytes = new byte[4];
        for (int i = 0; i < 4; i++) {
            int value = Integer.parseInt(parts[i]);
            if (value > 255) {
                return Optional.empty();
            }
            bytes[i] = (byte) value;
        }
        try {
            return Optional.of(InetAddress.getByAddress(bytes));
        } catch (UnknownHostException e) {
            return Optional.empty();
        }
    }

    private static Optional<InetAddress> parseIpv6(String text) {
        if (!text.chars().allMatch(c -> Character.digit(c, 16) >= 0 || c == ':' || c == '.')) {
            return Optional.empty(); // also rejects zone ids (%eth0)
        }
        try {
            // Brackets make the JDK treat the text as an IPv6 literal: it throws rather than resolving.
            InetAddress parsed = InetAddress.getByName("[" + text + "]");
            byte[] bytes = parsed.getAddress();
            if (bytes.length == 4) {
                bytes = mappedIpv6(bytes); // the JDK unwraps ::ffff:a.b.c.d; keep the IPv6 form
            }
            return Optional.of(Inet6Address.getByAddress(null, bytes, -1));
        } catch (UnknownHostException e) {
            return Optional.empty();
        }
    }

    private static byte[] mappedIpv6(byte[] ipv4) {
        byte[] mapped = new byte[16];
        mapped[10] = (byte) 0xFF;
        mapped[11] = (byte) 0xFF;
        System.arraycopy(ipv4, 0, mapped, 12, 4);
        return mapped;
    }
}
