package dev.postbox.http.internal;

/**
 * What an HTTP/1.1 header can carry, checked where a value enters Postbox (endpoint registration,
 * enqueue) rather than on every attempt: names are visible ASCII without separators (RFC 9110
 * tokens), values visible ASCII, space or tab (no CR, LF, NUL or non-ASCII: OkHttp refuses them, and
 * CR/LF would inject headers). The messages name the header and the rule, never the value, which may
 * be a credential.
 */
public final class HeaderRules {

    private static final String SEPARATORS = "\"(),/:;<=>?@[\\]{}";

    private HeaderRules() {}

    /**
     * Checks one header.
     *
     * @param where what the header belongs to, for the message (e.g. {@code "endpoint 'shop'"})
     * @throws IllegalArgumentException naming the header, the offending character's code and position
     *     and the rule
     */
    public static void check(String where, String name, String value) {
        checkName(where, name);
        checkValue(where, name, value);
    }

    /** Checks a header name. */
    public static void checkName(String where, String name) {
        if (name.isEmpty()) {
            throw new IllegalArgumentException(where + ": a header name may not be empty");
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (c <= 0x20 || c >= 0x7f || SEPARATORS.indexOf(c) >= 0) {
                throw new IllegalArgumentException(String.format(
                        "%s: header name '%s' has the character U+%04X at index %d: header names must be visible"
                                + " ASCII letters, digits and !#$%%&'*+-.^_`|~ (no spaces, separators, CR or LF)",
                        where, printable(name), (int) c, i));
            }
        }
    }

    /** Checks a header value. */
    public static void checkValue(String where, String name, String value) {
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (!(c == '\t' || (c >= 0x20 && c < 0x7f))) {
                String what =
                        c == '\r' || c == '\n' ? "CR/LF" : c < 0x20 || c == 0x7f ? "a control character" : "non-ASCII";
                throw new IllegalArgumentException(String.format(
                        "%s: the value of header '%s' has %s (U+%04X) at index %d: header values must be printable"
                                + " ASCII (0x20-0x7E) or tab, without CR or LF; encode other text (e.g. percent- "
                                + "or Base64-encoding)",
                        where, printable(name), what, (int) c, i));
            }
        }
    }

    /** The name with anything unprintable replaced by '?', safe to put in a message. */
    private static String printable(String name) {
        StringBuilder out = new StringBuilder(Math.min(name.length(), 100));
        for (int i = 0; i < name.length() && i < 100; i++) {
            char c = name.charAt(i);
            out.append(c > 0x20 && c < 0x7f ? c : '?');
        }
        return out.toString();
    }
}
