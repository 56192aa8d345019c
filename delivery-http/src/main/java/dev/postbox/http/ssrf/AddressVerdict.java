package dev.postbox.http.ssrf;

import java.net.InetAddress;
import java.util.Objects;

/**
 * The {@link SsrfGuard}'s decision about one address.
 *
 * @param address the address that was checked
 * @param category what kind of address it is (for an embedded form such as {@code ::ffff:10.0.0.1},
 *     the category of the embedded IPv4 address)
 * @param allowed whether Postbox may connect to it
 * @param reason a sentence explaining the decision, e.g. "127.0.0.1 is a loopback address"
 */
public record AddressVerdict(InetAddress address, AddressCategory category, boolean allowed, String reason) {

    /** Validates that no component is null. */
    public AddressVerdict {
        Objects.requireNonNull(address, "address may not be null");
        Objects.requireNonNull(category, "category may not be null");
        Objects.requireNonNull(reason, "reason may not be null");
    }

    /** Whether Postbox must not connect to the address. */
    public boolean forbidden() {
        return !allowed;
    }
}
