package dev.postbox.internal;

import dev.postbox.JobRequest;
import java.sql.Array;
import java.sql.SQLException;
import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * A job's tags: their rules, and their stored form, a {@code text[]} of {@code 'key=value'} sorted by
 * key (null when the job has none, so that untagged jobs add nothing to the partial GIN indexes). A
 * key never contains {@code '='}, so the first one splits an element.
 */
public final class JobTags {

    private static final Pattern KEY = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]*");

    private JobTags() {}

    /** Checks one tag; the message names the tag and the rule it breaks. */
    public static void validate(String key, String value) {
        if (key == null
                || key.isEmpty()
                || key.length() > JobRequest.MAX_TAG_KEY_LENGTH
                || !KEY.matcher(key).matches()) {
            throw new IllegalArgumentException("tag key '" + printable(key) + "' must be 1 to "
                    + JobRequest.MAX_TAG_KEY_LENGTH + " letters, digits, '.', '_' or '-', starting with a letter or"
                    + " a digit");
        }
        if (value == null || value.isEmpty() || value.length() > JobRequest.MAX_TAG_VALUE_LENGTH) {
            throw new IllegalArgumentException("tag '" + key + "' must have a value of 1 to "
                    + JobRequest.MAX_TAG_VALUE_LENGTH + " characters, was "
                    + (value == null ? "null" : value.length() + " characters"));
        }
        for (int i = 0; i < value.length(); i++) {
            if (Character.isISOControl(value.charAt(i))) {
                throw new IllegalArgumentException("the value of tag '" + key
                        + "' contains a control character (U+" + String.format("%04X", (int) value.charAt(i))
                        + "): tag values are printable text");
            }
        }
    }

    /** The stored form: {@code key=value} elements sorted by key, or null for no tags. */
    public static String @Nullable [] elements(Map<String, String> tags) {
        if (tags.isEmpty()) {
            return null;
        }
        Map<String, String> sorted = new TreeMap<>(tags);
        String[] elements = new String[sorted.size()];
        int i = 0;
        for (Map.Entry<String, String> tag : sorted.entrySet()) {
            elements[i++] = tag.getKey() + "=" + tag.getValue();
        }
        return elements;
    }

    /** The tags of a stored {@code text[]} (null: none), by key. */
    public static Map<String, String> read(@Nullable Array stored) throws SQLException {
        if (stored == null) {
            return Map.of();
        }
        Map<String, String> tags = new TreeMap<>();
        for (Object element : (Object[]) stored.getArray()) {
            String text = String.valueOf(element);
            int split = text.indexOf('=');
            if (split > 0) {
                tags.put(text.substring(0, split), text.substring(split + 1));
            }
        }
        return Collections.unmodifiableMap(tags);
    }

    private static String printable(@Nullable String text) {
        if (text == null) {
            return "null";
        }
        String shown = text.length() > 80 ? text.substring(0, 80) + "…" : text;
        StringBuilder out = new StringBuilder(shown.length());
        shown.codePoints().forEach(c -> out.append(Character.isISOControl(c) ? "?" : Character.toString(c)));
        return out.toString();
    }
}
