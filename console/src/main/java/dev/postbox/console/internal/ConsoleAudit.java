package dev.postbox.console.internal;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The audit trail of write actions: one INFO line per action on the logger {@code
 * dev.postbox.console.audit}, naming the user, the action, its target and what it changed (counts
 * and ids, never payloads or secrets). Refused writes are logged at WARN.
 */
public final class ConsoleAudit {

    private static final Logger log = LoggerFactory.getLogger("dev.postbox.console.audit");

    public void done(String principal, String action, String target, String result) {
        log.info("postbox console: {} {} {}: {}", clean(principal), action, clean(target), clean(result));
    }

    public void refused(String principal, String method, String path, String reason) {
        log.warn("postbox console: refused {} {} by {}: {}", method, clean(path), clean(principal), reason);
    }

    /** Keeps user-supplied text on one log line. */
    private static String clean(String text) {
        return text.replaceAll("\\p{Cntrl}", "?");
    }
}
