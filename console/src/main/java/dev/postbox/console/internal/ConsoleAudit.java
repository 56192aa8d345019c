package dev.postbox.console.internal;

import dev.postbox.internal.RefusalLog;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The audit trail of write actions: one INFO line per action on the logger {@code
 * dev.postbox.console.audit}, naming the user, the action, its target and what it changed (counts
 * and ids, never payloads or secrets). Refused writes are logged each at DEBUG, with at most one
 * WARN summary a minute (the count and the latest), so a flood of forged POSTs cannot flood the log.
 */
public final class ConsoleAudit {

    private static final Logger log = LoggerFactory.getLogger("dev.postbox.console.audit");

    private final RefusalLog refusals;

    public ConsoleAudit() {
        this(Duration.ofMinutes(1));
    }

    /** With another interval between WARN summaries of refused writes. */
    public ConsoleAudit(Duration refusalSummaryInterval) {
        this.refusals = new RefusalLog(log, "console write(s)", refusalSummaryInterval);
    }

    public void done(String principal, String action, String target, String result) {
        log.info("postbox console: {} {} {}: {}", clean(principal), action, clean(target), clean(result));
    }

    public void refused(String principal, String method, String path, String reason) {
        refusals.refused(method + " " + clean(path) + " by " + clean(principal) + ": " + reason);
    }

    /** Keeps user-supplied text on one log line. */
    private static String clean(String text) {
        return text.replaceAll("\\p{Cntrl}", "?");
    }
}
