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
 * ResponseEntity<String> receive(HttpServletRequest request, @RequestBody byte[] body) {
 *     return inbox.receive(request, body, message -> orders.apply(message.bodyText()));
 * }
 * }</pre>
 *
 * Take the body as {@code byte[]}: the signature covers the exact bytes sent.
 */
public class WebhookInboxMvc {

    private final WebhookInbox inbox;

    public WebhookInboxMvc(WebhookInbox inbox) {
        this.inbox = inbox;
    }

    /** The inbox's result for the request, as a response. */
    public ResponseEntity<String> receive(HttpServletRequest request, byte[] rawBody, InboxHandler handler) {
        return toResponse(result(request, rawBody, handler));
    }

    /**
     * The inbox's result for the request, reading the body from the request itself, at most the
     * inbox's {@code maxBodyBytes} (a larger one is answered 413 without being buffered). Prefer this
     * to a {@code @RequestBody byte[]} parameter, which Spring buffers whole, however large.
     */
    public ResponseEntity<String> receive(HttpServletRequest request, InboxHandler handler) throws java.io.IOException {
        long declared = request.getContentLengthLong();
        if (declared > inbox.maxBodyBytes()) {
            return toResponse(new InboxResult(
                    InboxResult.Outcome.TOO_LARGE,
                    request.getHeader("webhook-id"),
                    "TOO_LARGE: the body is " + declared + " bytes, over the limit of " + inbox.maxBodyBytes()
                            + " bytes"));
        }
        return toResponse(inbox.receive(request::getHeader, request.getInputStream(), handler));
    }

    /** The inbox's result for the request, for callers that build their own response. */
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
