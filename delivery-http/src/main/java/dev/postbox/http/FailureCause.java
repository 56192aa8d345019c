package dev.postbox.http;

/** Why an attempt did not succeed, for the attempt log and metrics. */
public enum FailureCause {
    /** The attempt succeeded. */
    NONE,
    /** The endpoint answered with a non-2xx, non-3xx status. */
    HTTP_STATUS,
    /** The endpoint answered with a redirect, which is never followed. */
    REDIRECT,
    /** Connect, read or whole-call timeout. */
    TIMEOUT,
    /** Connection refused or reset, DNS failure, TLS failure or another I/O error. */
    CONNECTION,
    /** The SSRF guard refused the destination (URL, resolved address or connect-time address). */
    FORBIDDEN_DESTINATION,
    /** The request could not be built (for example a header value OkHttp rejects). */
    INVALID_REQUEST,
    /**
     * Nothing was sent: the request's {@linkplain DeliveryRequest#sendDeadline() send deadline}
     * passed before its connection was ready (for a rate-limited endpoint: its permit had expired).
     */
    NOT_SENT
}
