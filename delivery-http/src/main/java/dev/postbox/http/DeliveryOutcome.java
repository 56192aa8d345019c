package dev.postbox.http;

/**
 * What the engine should do with a job after one delivery attempt.
 *
 * <table>
 *   <caption>How attempts are classified</caption>
 *   <tr><th>attempt ended with</th><th>outcome</th></tr>
 *   <tr><td>2xx</td><td>{@link #DONE}</td></tr>
 *   <tr><td>3xx (never followed)</td><td>{@link #RETRY}</td></tr>
 *   <tr><td>408, 425, 429, 5xx</td><td>{@link #RETRY} ({@code Retry-After} honoured on 429 and 503)</td></tr>
 *   <tr><td>410 Gone</td><td>{@link #DISABLE_ENDPOINT}</td></tr>
 *   <tr><td>other 4xx</td><td>{@link #DEAD}, unless configured as retryable</td></tr>
 *   <tr><td>timeout, connection refused or reset, DNS failure, TLS failure</td><td>{@link #RETRY}</td></tr>
 *   <tr><td>destination refused by the SSRF guard, invalid request</td><td>{@link #DEAD}</td></tr>
 * </table>
 *
 * <p>Why a redirect is a retryable failure rather than followed or dead: following would let an
 * endpoint bounce a signed request to an address the SSRF guard never vetted, so it is never
 * followed; but a redirect is usually a transient deployment state (an http-to-https move, a load
 * balancer in maintenance) that the receiver fixes, so the job keeps its attempt budget instead of
 * dying at once. The {@code Location} header is kept in the attempt result so operators can correct
 * the endpoint URL.
 */
public enum DeliveryOutcome {
    /** Delivered: complete the job. */
    DONE,
    /** Failed transiently: retry with backoff (or after {@code Retry-After}) while attempts remain. */
    RETRY,
    /** Failed permanently: dead-letter the job now, retrying cannot help. */
    DEAD,
    /** The endpoint is gone (410): dead-letter the job and disable the endpoint. */
    DISABLE_ENDPOINT;

    /** Whether the job is finished successfully. */
    public boolean isSuccess() {
        return this == DONE;
    }
}
