package dev.postbox.http;

import dev.postbox.Require;
import java.util.regex.Pattern;
import okhttp3.HttpUrl;

/**
 * An endpoint URL as Postbox shows it in logs, exception messages, start-up errors and the admin
 * surfaces: scheme, host, port and path, never credentials (user info) or a fragment, and the query
 * replaced by {@value #HIDDEN_QUERY}, since receivers often put tokens in it ({@code ?token=…}).
 */
public final class RedactedUrl {

    /** What a query is replaced by. */
    public static final String HIDDEN_QUERY = "?[redacted]";

    private static final Pattern USER_INFO = Pattern.compile("^((?:[A-Za-z][A-Za-z0-9+.-]*:)?/*)[^/?#]*@");

    private static final int MAX_LENGTH = 200;

    private RedactedUrl() {}

    /** The URL as shown; a text that does not parse as http(s) is cut before its query and user info. */
    public static String of(String url) {
        Require.notNull(url, "url");
        HttpUrl parsed = HttpUrl.parse(url.strip());
        return parsed != null ? of(parsed) : ofText(url.strip());
    }

    /** The parsed URL as shown. */
    public static String of(HttpUrl url) {
        Require.notNull(url, "url");
        String shown = url.newBuilder()
                .username("")
                .password("")
                .query(null)
                .fragment(null)
                .build()
                .toString();
        return url.encodedQuery() != null ? shown + HIDDEN_QUERY : shown;
    }

    private static String ofText(String text) {
        String shown = USER_INFO.matcher(text).replaceFirst("$1");
        int query = shown.indexOf('?');
        int fragment = shown.indexOf('#');
        int cut = query >= 0 && (fragment < 0 || query < fragment) ? query : fragment;
        if (cut >= 0) {
            shown = shown.substring(0, cut) + (cut == query ? HIDDEN_QUERY : "");
        }
        return shown.length() <= MAX_LENGTH ? shown : shown.substring(0, MAX_LENGTH) + "…";
    }
}
