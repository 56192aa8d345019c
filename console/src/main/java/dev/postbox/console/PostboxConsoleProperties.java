package dev.postbox.console;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Settings under {@code postbox.console.*}: where the operator console is mounted, whether it may
 * change anything, who may, and what it shows.
 */
@ConfigurationProperties("postbox.console")
public class PostboxConsoleProperties {

    /** Default of {@link #getPath()}. */
    public static final String DEFAULT_PATH = "/postbox";

    /** Default of {@link #getRole()}. */
    public static final String DEFAULT_ROLE = "POSTBOX_OPERATOR";

    /** Default of {@link #getReadRole()}. */
    public static final String DEFAULT_READ_ROLE = "POSTBOX_VIEWER";

    /** Default of {@link #getRefreshInterval()}. */
    public static final Duration DEFAULT_REFRESH_INTERVAL = Duration.ofSeconds(5);

    /** Default of {@link #getPageSize()}. */
    public static final int DEFAULT_PAGE_SIZE = 50;

    /** Whether the console is mounted at all (it is when this module is on the classpath). */
    private boolean enabled = true;

    /**
     * Path the console is mounted at, below the servlet context path: starts with '/', no trailing
     * '/', e.g. /postbox or /ops/postbox.
     */
    private String path = DEFAULT_PATH;

    /**
     * Whether write actions (replay, purge, cancel, pause, resume, caps, enable, disable, rotate
     * secret) are offered and accepted. Off by default: a read-only console shows no write button
     * and refuses every POST.
     */
    private boolean writeEnabled = false;

    /**
     * Role an authenticated user needs for write actions (without the ROLE_ prefix); it also lets the
     * user read. Write actions need Spring Security: without it no user is authenticated and every
     * POST is refused.
     */
    private String role = DEFAULT_ROLE;

    /**
     * Role an authenticated user needs to read the console (without the ROLE_ prefix); holders of
     * postbox.console.role may read too. Everyone else is refused with 401 (not authenticated) or 403.
     */
    private String readRole = DEFAULT_READ_ROLE;

    /**
     * DANGEROUS: lets anyone who reaches the application read the console (jobs, keys, errors,
     * endpoints, workers) without authentication or role. Writes still need an authenticated user
     * with postbox.console.role. Logged as a WARN at start-up. Off by default: the console is closed
     * to users without the read role.
     */
    private boolean allowAnonymous = false;

    /**
     * Whether job payloads and headers are shown on the job page. Off by default: payloads often
     * hold personal data, and the console should not widen who can read them.
     */
    private boolean showPayloads = false;

    /** How often the overview refreshes itself in the browser; zero turns auto-refresh off. */
    private Duration refreshInterval = DEFAULT_REFRESH_INTERVAL;

    /** Rows per list page (job search results, dead letters). */
    private int pageSize = DEFAULT_PAGE_SIZE;

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public String getPath() {
        return path;
    }

    public void setPath(String path) {
        if (path == null || !path.matches("(/[A-Za-z0-9._~-]+)+")) {
            throw new IllegalArgumentException("postbox.console.path must start with '/', have no trailing '/' and"
                    + " use letters, digits and . _ ~ - in its segments (e.g. /postbox or /ops/postbox), was '"
                    + path + "'");
        }
        this.path = path;
    }

    public boolean isWriteEnabled() {
        return writeEnabled;
    }

    public void setWriteEnabled(boolean writeEnabled) {
        this.writeEnabled = writeEnabled;
    }

    public String getRole() {
        return role;
    }

    public void setRole(String role) {
        this.role = roleName(role, "postbox.console.role", DEFAULT_ROLE);
    }

    private static String roleName(String role, String property, String example) {
        if (role == null || role.isBlank()) {
            throw new IllegalArgumentException(property + " may not be blank (e.g. " + example + ")");
        }
        String trimmed = role.trim();
        return trimmed.startsWith("ROLE_") ? trimmed.substring("ROLE_".length()) : trimmed;
    }

    public String getReadRole() {
        return readRole;
    }

    public void setReadRole(String readRole) {
        this.readRole = roleName(readRole, "postbox.console.read-role", DEFAULT_READ_ROLE);
    }

    public boolean isAllowAnonymous() {
        return allowAnonymous;
    }

    public void setAllowAnonymous(boolean allowAnonymous) {
        this.allowAnonymous = allowAnonymous;
    }

    public boolean isShowPayloads() {
        return showPayloads;
    }

    public void setShowPayloads(boolean showPayloads) {
        this.showPayloads = showPayloads;
    }

    public Duration getRefreshInterval() {
        return refreshInterval;
    }

    public void setRefreshInterval(Duration refreshInterval) {
        if (refreshInterval == null || refreshInterval.isNegative()) {
            throw new IllegalArgumentException(
                    "postbox.console.refresh-interval must be zero (off) or positive, was " + refreshInterval);
        }
        this.refreshInterval = refreshInterval;
    }

    public int getPageSize() {
        return pageSize;
    }

    public void setPageSize(int pageSize) {
        if (pageSize < 1 || pageSize > 1000) {
            throw new IllegalArgumentException("postbox.console.page-size must be between 1 and 1000, was " + pageSize);
        }
        this.pageSize = pageSize;
    }
}
