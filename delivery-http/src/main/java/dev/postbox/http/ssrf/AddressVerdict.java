package dev.postbox.http.ssrf;

import dev.postbox.Require;
import java.net.InetAddress;

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
        Require.notNull(address, "address");
        Require.notNull(category, "category");
        Require.notNull(reason, "reason");
    }

    /** Whether Postbox must not connect to the address. */
    public boolean forbidden() {
        return !allowed;
    }
}
