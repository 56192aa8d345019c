package dev.postbox.spring.http;

import dev.postbox.http.inbox.InboxHandler;
import dev.postbox.http.inbox.InboxResult;
import dev.postbox.http.inbox.WebhookInbox;
import jakarta.servlet.http.HttpServletRequest;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;

/**
 * Spring MVC glue for a {@link WebhookInbox}: verifies the request's signature, applies the handler
 * once per {@code webhook-id} in the inbox transaction, and answers 204 (applied), 200 (duplicate: the
 * sender stops retrying) or 401 (rejected, with the reason). A handler that throws propagates (the
 * sender sees a 5xx and retries; nothing was recorded).
 *
 * <pre>{@code
 * @PostMapping("/hooks/postbox")
 * ResponseEntity<String> receive(HttpServletRequest request) throws IOException {
 *     return inbox.receive(request, message -> orders.apply(message.bodyText()));
 * }
 * }</pre>
 *
 * Let the inbox read the body from the request ({@link #receive(HttpServletRequest, InboxHandler)},
 * {@link #result(HttpServletRequest, InboxHandler)}): it reads at most the inbox's {@code
 * maxBodyBytes} plus one byte, exactly as sent (the signature covers the exact bytes). Do not take
 * a {@code @RequestBody byte[]} parameter: Spring reads the whole body into memory before the
 * inbox's size cap applies, however large the sender makes it.
 */
public class WebhookInboxMvc {

    private final WebhookInbox inbox;

    public WebhookInboxMvc(WebhookInbox inbox) {
        this.inbox = inbox;
    }

    /**
     * The inbox's result for a body already read, as a response. Prefer {@link
     * #receive(HttpServletRequest, InboxHandler)}: a body taken as {@code @RequestBody byte[]} was
     * read whole before the size cap applies.
     */
    public ResponseEntity<String> receive(HttpServletRequest request, byte[] rawBody, InboxHandler handler) {
        return toResponse(result(request, rawBody, handler));
    }

    /**
     * The inbox's result for the request, reading the body from the request itself, at most the
     * inbox's {@code maxBodyBytes} (a larger one is answered 413 without being buffered). Prefer this
     * to a {@code @RequestBody byte[]} parameter, which Spring buffers whole, however large.
     */
    public ResponseEntity<String> receive(HttpServletRequest request, InboxHandler handler) throws java.io.IOException {
        return toResponse(result(request, handler));
    }

    /**
     * The inbox's result for the request, for callers that build their own response, reading the
     * body from the request as {@link #receive(HttpServletRequest, InboxHandler)} does: a declared
     * {@code Content-Length} over the inbox's {@code maxBodyBytes} is answered {@link
     * InboxResult.Outcome#TOO_LARGE} without reading, and a body without one (chunked) is read to at
     * most {@code maxBodyBytes + 1} bytes.
     */
    public InboxResult result(HttpServletRequest request, InboxHandler handler) throws java.io.IOException {
        long declared = request.getContentLengthLong();
        if (declared > inbox.maxBodyBytes()) {
            return new InboxResult(
                    InboxResult.Outcome.TOO_LARGE,
                    request.getHeader("webhook-id"),
                    "TOO_LARGE: the body is " + declared + " bytes, over the limit of " + inbox.maxBodyBytes()
                            + " bytes");
        }
        return inbox.receive(request::getHeader, request.getInputStream(), handler);
    }

    /**
     * The inbox's result for a body already read, for callers that build their own response. Prefer
     * {@link #result(HttpServletRequest, InboxHandler)}, which applies the size cap while reading.
     */
    public InboxResult result(HttpServletRequest request, byte[] rawBody, InboxHandler handler) {
        return inbox.receive(request::getHeader, rawBody, handler);
    }

    /** 204, 200, or 401 (413 when too large) with the reason as text. */
    public static ResponseEntity<String> toResponse(InboxResult result) {
        if (result.outcome() == InboxResult.Outcome.REJECTED || result.outcome() == InboxResult.Outcome.TOO_LARGE) {
            return ResponseEntity.status(result.httpStatus())
                    .contentType(MediaType.TEXT_PLAIN)
                    .body(result.reason());
        }
        return ResponseEntity.status(result.httpStatus()).build();
    }

    /** The underlying inbox. */
    public WebhookInbox inbox() {
        return inbox;
    }
}
