package dev.postbox.http.internal;

import dev.postbox.http.ssrf.AddressVerdict;
import java.net.UnknownHostException;

/** Thrown by {@link GuardedDns} when a host name resolves to a forbidden address. */
public final class ForbiddenLookupException extends UnknownHostException implements SsrfRefusal {

    private static final long serialVersionUID = 1L;

    private final transient AddressVerdict verdict;

    ForbiddenLookupException(String host, AddressVerdict verdict) {
        super("refused to resolve " + host + ": " + verdict.reason() + " (SSRF guard)");
        this.verdict = verdict;
    }

    @Override
    public AddressVerdict verdict() {
        return verdict;
    }
}
