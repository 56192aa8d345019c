package dev.postbox.spring.endpoint;

import java.security.Principal;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.SecurityContext;

/** The text of the audit line {@link PostboxEndpoint} writes for each write operation. */
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

    /** {@code action=<a>} and each given parameter as {@code name=value}, in a fixed order. */
    static String describe(
            String action,
            @Nullable Long id,
            @Nullable String queue,
            @Nullable String kind,
            @Nullable String endpoint,
            @Nullable String error,
            @Nullable String deadFrom,
            @Nullable String deadTo,
            @Nullable Boolean all,
            @Nullable String reason,
            @Nullable String schedule) {
        StringBuilder b = new StringBuilder("action=").append(clean(action));
        append(b, "id", id);
        append(b, "queue", queue);
        append(b, "kind", kind);
        append(b, "endpoint", endpoint);
        append(b, "error", error);
        append(b, "deadFrom", deadFrom);
        append(b, "deadTo", deadTo);
        append(b, "all", all);
        append(b, "reason", reason);
        append(b, "schedule", schedule);
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
