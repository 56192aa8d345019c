package dev.postbox;

import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Tenant ids: 1 to {@value #MAX_LENGTH} characters, letters (ASCII), digits, {@code .}, {@code _}
 * and {@code -}, starting with a letter or digit. The default tenant has no id (null, stored as
 * {@code NULL}; {@code ''} in the tenant indexes and in {@code outbox_tenant}). The alphabet keeps
 * tenant ids safe in metric tags, log lines and the {@code <tenant>/<key>} delivery ids.
 */
public final class TenantId {

    /**
     * How the default tenant is named where a name is needed (metric tags, admin requests, messages):
     * parentheses cannot appear in a tenant id, so no tenant is mistaken for it.
     */
    public static final String DEFAULT_NAME = "(default)";

    /** Longest tenant id, in characters. */
    public static final int MAX_LENGTH = 100;

    private static final Pattern VALID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0," + (MAX_LENGTH - 1) + "}");

    private TenantId() {}

    /**
     * Returns the id if it is valid.
     *
     * @param what names the value in the error message (e.g. {@code "tenant"})
     * @throws IllegalArgumentException naming the value and the allowed form
     */
    public static String validate(@Nullable String tenant, String what) {
        if (tenant == null || !VALID.matcher(tenant).matches()) {
            throw new IllegalArgumentException(what + " " + describe(tenant) + " is not a valid tenant id: use 1 to "
                    + MAX_LENGTH + " letters, digits, '.', '_' or '-', starting with a letter or digit"
                    + " (leave it null for the default tenant)");
        }
        return tenant;
    }

    private static String describe(@Nullable String tenant) {
        if (tenant == null) {
            return "null";
        }
        if (tenant.length() > MAX_LENGTH) {
            return "of " + tenant.length() + " characters";
        }
        StringBuilder shown = new StringBuilder("'");
        tenant.codePoints().forEach(cp -> {
            if (Character.isISOControl(cp)) {
                shown.append(String.format("\\u%04X", cp));
            } else {
                shown.appendCodePoint(cp);
            }
        });
        return shown.append('\'').toString();
    }

    /** The tenant's id, or {@value #DEFAULT_NAME} for the default tenant (null). */
    public static String name(@Nullable String tenant) {
        return tenant == null ? DEFAULT_NAME : tenant;
    }

    /** The key of a tenant in the tenant indexes and in {@code outbox_tenant}: the id, or {@code ""} for the default. */
    public static String key(@Nullable String tenant) {
        return tenant == null ? "" : tenant;
    }
}
