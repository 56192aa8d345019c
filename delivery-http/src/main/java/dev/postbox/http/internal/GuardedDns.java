package dev.postbox.http.internal;

import dev.postbox.http.ssrf.AddressVerdict;
import dev.postbox.http.ssrf.SsrfGuard;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;
import okhttp3.Dns;

/**
 * Resolves through a delegate and refuses the whole answer if any address is forbidden: keeping only
 * the allowed ones would let a name mixing public and private answers reach the private one through
 * a later retry or another resolver.
 */
public final class GuardedDns implements Dns {

    private final SsrfGuard guard;
    private final Dns delegate;

    public GuardedDns(SsrfGuard guard, Dns delegate) {
        this.guard = guard;
        this.delegate = delegate;
    }

    @Override
    public List<InetAddress> lookup(String hostname) throws UnknownHostException {
        List<InetAddress> addresses = delegate.lookup(hostname);
        for (InetAddress address : addresses) {
            AddressVerdict verdict = guard.check(hostname, address);
            if (verdict.forbidden()) {
                throw new ForbiddenLookupException(hostname, verdict);
            }
        }
        return addresses;
    }
}
