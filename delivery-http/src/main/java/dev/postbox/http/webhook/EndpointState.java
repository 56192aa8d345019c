package dev.postbox.http.webhook;

/** Whether an endpoint receives deliveries. */
public enum EndpointState {
    /** Deliveries run. */
    ENABLED,
    /**
     * Deliveries wait, parked without spending attempts, until the endpoint is enabled again
     * (operator, HTTP 410 Gone, or sustained failure).
     */
    DISABLED
}
