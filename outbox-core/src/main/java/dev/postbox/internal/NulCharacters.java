package dev.postbox.internal;

import org.jspecify.annotations.Nullable;

/**
 * PostgreSQL stores no U+0000 (NUL): not in {@code text} (the driver refuses the byte) and not in
 * {@code jsonb} (the escape {@code \u0000} is an "unsupported Unicode escape sequence"). Payloads
 * with one are refused at enqueue with a clear error; text Postbox records about attempts (errors,
 * response excerpts: a receiver's answer is not ours to choose) has it replaced by U+FFFD, so that
 * the outcome is still recorded.
 */
public final class NulCharacters {

    /** What NUL is replaced with in recorded text. */
    public static final char REPLACEMENT = '\uFFFD';

    private NulCharacters() {}

    /** Whether the JSON text holds a NUL, raw or as the escape {@code \u0000}. */
    public static boolean inJson(String json) {
        return json.indexOf('\0') >= 0 || escapedNulAt(json, 0) >= 0;
    }

    /** The text with every NUL replaced by U+FFFD. */
    public static String text(String text) {
        return text.indexOf('\0') < 0 ? text : text.replace('\0', REPLACEMENT);
    }

    /** The JSON text with every NUL, raw or escaped ({@code \u0000}), replaced by U+FFFD. */
    public static @Nullable String json(@Nullable String json) {
        if (json == null) {
            return null;
        }
        String raw = text(json);
        int at = escapedNulAt(raw, 0);
        if (at < 0) {
            return raw;
        }
        StringBuilder out = new StringBuilder(raw.length());
        int from = 0;
        while (at >= 0) {
            out.append(raw, from, at).append("\\ufffd");
            from = at + 6;
            at = escapedNulAt(raw, from);
        }
        return out.append(raw, from, raw.length()).toString();
    }

    /** Index of the next {@code \u0000} escape (a backslash not itself escaped) at or after {@code from}. */
    private static int escapedNulAt(String json, int from) {
        int i = from;
        while ((i = json.indexOf("u0000", i)) >= 0) {
            int slashes = 0;
            for (int j = i - 1; j >= from && json.charAt(j) == '\\'; j--) {
                slashes++;
            }
            if (slashes % 2 == 1) {
                return i - 1;
            }
            i += 5;
        }
        return -1;
    }
}
