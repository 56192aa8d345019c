package dev.postbox.http.ssrf;

import org.jspecify.annotations.Nullable;

/**
 * An endpoint URL that Postbox refuses to deliver to: a private, loopback, metadata or otherwise
 * forbidden address (SSRF guard), a scheme other than http(s), or plain http when https is required.
 * Thrown at enqueue time by {@link SsrfGuard#validateUrl(String)}; the message names the URL and the
 * fix.
 */
public final class ForbiddenDestinationException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    private final transient @Nullable AddressVerdict verdict;

    /** Creates the exception; {@code verdict} is the address decision when one was made. */
    public ForbiddenDestinationException(String message, @Nullable AddressVerdict verdict) {
        super(message);
        this.verdict = verdict;
    }

    /** The address decision behind the refusal, or null when the URL itself was refused. */
    public @Nullable AddressVerdict verdict() {
        return verdict;
    }
}
