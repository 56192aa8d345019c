package dev.postbox.console.internal;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpSession;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;

/**
 * The console's own CSRF token (synchronizer pattern): one random token per HTTP session, put
 * into every form and compared in constant time on every POST. It is checked whether or not Spring
 * Security's CSRF filter also guards the path, so a forged POST is refused in every setup (an
 * application may have switched Spring Security's CSRF off for its APIs).
 */
public final class CsrfTokens {

    /** The form field. */
    public static final String PARAMETER = "_postbox_csrf";

    private static final String ATTRIBUTE = CsrfTokens.class.getName();
    private static final SecureRandom RANDOM = new SecureRandom();

    /** The session's token, created with the session when there is none. */
    public String token(HttpServletRequest request) {
        HttpSession session = request.getSession(true);
        synchronized (session) {
            Object token = session.getAttribute(ATTRIBUTE);
            if (token instanceof String s) {
                return s;
            }
            byte[] bytes = new byte[32];
            RANDOM.nextBytes(bytes);
            String created = Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
            session.setAttribute(ATTRIBUTE, created);
            return created;
        }
    }

    /** Whether the request carries the session's token. */
    public boolean valid(HttpServletRequest request) {
        HttpSession session = request.getSession(false);
        String sent = request.getParameter(PARAMETER);
        if (session == null || sent == null) {
            return false;
        }
        Object expected = session.getAttribute(ATTRIBUTE);
        return expected instanceof String s
                && MessageDigest.isEqual(s.getBytes(StandardCharsets.UTF_8), sent.getBytes(StandardCharsets.UTF_8));
    }
}
