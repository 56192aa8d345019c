package dev.postbox.http.internal;

import dev.postbox.Require;
import java.net.InetAddress;
import java.util.Arrays;
import java.util.Optional;

/** An IPv4 or IPv6 network in CIDR notation, e.g. {@code 10.0.0.0/8} or {@code fc00::/7}. */
public final class Cidr {

    private final byte[] network;
    private final int prefixLength;
    private final String text;

    private Cidr(byte[] network, int prefixLength) {
        this.network = network;
        this.prefixLength = prefixLength;
        this.text = IpLiterals.format(network) + "/" + prefixLength;
    }

    /**
     * Parses {@code address/prefix} or a bare address (a single host: /32 or /128). Never resolves
     * host names.
     *
     * @throws IllegalArgumentException if the text is not a CIDR or the prefix is out of range
     */
    public static Cidr parse(String text) {
        Require.notNull(text, "cidr");
        return tryParse(text)
                .orElseThrow(() -> new IllegalArgumentException(
                        "'" + text + "' is not a CIDR such as 10.0.0.0/8, 127.0.0.1/32 or fc00::/7"));
    }

    /** Like {@link #parse(String)} but empty instead of throwing. */
    public static Optional<Cidr> tryParse(String text) {
        String trimmed = text.strip();
        int slash = trimmed.indexOf('/');
        String addressPart = slash < 0 ? trimmed : trimmed.substring(0, slash);
        Optional<InetAddress> address = IpLiterals.parse(addressPart);
        if (address.isEmpty()) {
            return Optional.empty();
        }
        byte[] bytes = address.get().getAddress();
        int maxPrefix = bytes.length * 8;
        int prefix = maxPrefix;
        if (slash >= 0) {
            String prefixPart = trimmed.substring(slash + 1);
            if (prefixPart.isEmpty()
                    || prefixPart.length() > 3
                    || !prefixPart.chars().allMatch(c -> c >= '0' && c <= '9')) {
                return Optional.empty();
            }
            prefix = Integer.parseInt(prefixPart);
            if (prefix > maxPrefix) {
                return Optional.empty();
            }
        }
        return Optional.of(new Cidr(mask(bytes, prefix), prefix));
    }

    /** Whether {@code address} lies in this network (an IPv4 network never contains an IPv6 address). */
    public boolean contains(InetAddress address) {
        return contains(address.getAddress());
    }

    /** Whether the raw address bytes lie in this network. */
    public boolean contains(byte[] address) {
        if (address.length != network.length) {
            return false;
        }
        byte[] masked = mask(address, prefixLength);
        return Arrays.equals(masked, network);
    }

    /** Whether this network is a single host (/32 or /128). */
    public boolean isSingleHost() {
        return prefixLength == network.length * 8;
    }

    private static byte[] mask(byte[] address, int prefix) {
        byte[] masked = address.clone();
        for (int i = 0; i < masked.length; i++) {
            int bitsInByte = Math.max(0, Math.min(8, prefix - i * 8));
            int byteMask = bitsInByte == 0 ? 0 : (0xFF << (8 - bitsInByte)) & 0xFF;
            masked[i] = (byte) (masked[i] & byteMask);
        }
        return masked;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof Cidr that && text.equals(that.text);
    }

    @Override
    public int hashCode() {
        return text.hashCode();
    }

    @Override
    public String toString() {
        return text;
    }
}
