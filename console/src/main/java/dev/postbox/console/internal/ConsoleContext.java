package dev.postbox.console.internal;

import org.jspecify.annotations.Nullable;

/**
 * What every page's layout needs: where the console is mounted, who is looking, whether write
 * buttons show, the form tokens, and which optional pages exist.
 *
 * @param path the console's path below the context path, e.g. /postbox
 * @param csrfToken the console's own CSRF token (only when the user can write)
 * @param frameworkCsrf Spring Security's CSRF field, when it has one
 * @param refreshSeconds the overview's auto-refresh period, 0 for none
 */
public record ConsoleContext(
        String path,
        String principal,
        boolean canWrite,
        boolean writeEnabled,
        String csrfParameter,
        @Nullable String csrfToken,
        ConsoleAccess.@Nullable HiddenField frameworkCsrf,
        boolean webhooks,
        boolean showPayloads,
        long refreshSeconds,
        String htmxVersion,
        Formats fmt) {}
