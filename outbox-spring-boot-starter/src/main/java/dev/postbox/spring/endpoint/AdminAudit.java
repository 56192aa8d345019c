package dev.postbox.spring.endpoint;

import java.security.Principal;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.SecurityContext;

/** The text of the audit line each write operation of the Postbox endpoints writes. */
final class AdminAudit {

    /** Longest parameter value written as is; longer ones (free text) are cut. */
    private static final int MAX_VALUE = 200;

    private AdminAudit() {}

    /** The caller's principal name, or {@code (anonymous)}. */
    static String principal(@Nullable SecurityContext caller) {
        Principal principal = caller == null ? null : caller.getPrincipal();
        String name = principal == null ? null : principal.getName();
        return name == null || name.isBlank() ? "(anonymous)" : clean(name);
    }

    /** {@code action=<a>} and each given parameter as {@code name=value}, in the map's order. */
    static String describe(String action, Map<String, ? extends @Nullable Object> parameters) {
        StringBuilder b = new StringBuilder("action=").append(clean(action));
        parameters.forEach((name, value) -> append(b, name, value));
        return b.toString();
    }

    private static void append(StringBuilder b, String name, @Nullable Object value) {
        if (value != null && !value.toString().isBlank()) {
            b.append(' ').append(name).append('=').append(clean(value.toString()));
        }
    }

    /** One line whatever the input: control characters become '?', so a value cannot forge a log line. */
    static String clean(String value) {
        String cut = value.length() > MAX_VALUE ? value.substring(0, MAX_VALUE) + "…" : value;
        StringBuilder out = new StringBuilder(cut.length());
        cut.codePoints().forEach(c -> out.appendCodePoint(Character.isISOControl(c) ? '?' : c));
        return out.toString().strip();
    }
}
