/**
 * The SSRF guard of HTTP delivery: {@link dev.postbox.http.ssrf.SsrfGuard} resolves an endpoint's
 * host and refuses loopback, private, link-local, CGNAT, multicast and metadata addresses (and their
 * mapped forms), at enqueue and again at connect time, unless an {@link
 * dev.postbox.http.ssrf.SsrfPolicy} allows them. Address classification lives in {@code
 * dev.postbox.http.internal}.
 */
@NullMarked
package dev.postbox.http.ssrf;

import org.jspecify.annotations.NullMarked;
