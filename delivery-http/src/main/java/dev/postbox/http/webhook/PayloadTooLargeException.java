package dev.postbox.http.webhook;

/** A webhook payload is larger than the configured limit; nothing was enqueued. */
public final class PayloadTooLargeException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    private final long size;
    private final long limit;

    PayloadTooLargeException(String target, long size, long limit) {
        super("Webhook payload for " + target + " is " + size + " bytes of JSON, over the limit of " + limit
                + " bytes (postbox.http.max-payload-bytes): send a smaller document, for example an id and a"
                + " URL the receiver can fetch the details from, or raise the limit");
        this.size = size;
        this.limit = limit;
    }

    public long size() {
        return size;
    }

    public long limit() {
        return limit;
    }
}
