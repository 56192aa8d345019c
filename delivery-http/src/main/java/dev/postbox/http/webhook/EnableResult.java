package dev.postbox.http.webhook;

/**
 * What enabling an endpoint set in motion.
 *
 * @param changed whether the endpoint was disabled before
 * @param resumed waiting delivery jobs made due now (they had been parked while it was disabled)
 * @param replayed dead letters put back because the endpoint was disabled (410 Gone) when they died
 */
public record EnableResult(boolean changed, int resumed, int replayed) {}
