package dev.postbox.http.internal;

import dev.postbox.http.ssrf.AddressVerdict;

/** Marks the I/O exceptions by which the resolution and connect-time checks refuse a destination. */
public interface SsrfRefusal {

    /** The decision that refused the destination. */
    AddressVerdict verdict();
}
