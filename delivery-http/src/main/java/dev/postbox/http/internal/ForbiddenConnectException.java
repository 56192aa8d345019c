package dev.postbox.http.internal;

import dev.postbox.http.ssrf.AddressVerdict;
import java.net.ConnectException;

/** Thrown by a guarded socket when asked to connect to a forbidden address. */
public final class ForbiddenConnectException extends ConnectException implements SsrfRefusal {

    private static final long serialVersionUID = 1L;

    private final transient AddressVerdict verdict;

    ForbiddenConnectException(AddressVerdict verdict) {
        super("refused to connect: " + verdict.reason() + " (SSRF guard)");
        this.verdict = verdict;
    }

    @Override
    public AddressVerdict verdict() {
        return verdict;
    }
}
