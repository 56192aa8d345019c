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
     * Role a user needs for write actions when Spring Security is on the classpath (without the
     * ROLE_ prefix). Reading needs no role of its own: protect the path with your security
     * configuration, as for any page of the application.
     */
    private String role = DEFAULT_ROLE;

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
        if (role == null || role.isBlank()) {
            throw new IllegalArgumentException("postbox.console.role may not be blank (e.g. POSTBOX_OPERATOR)");
        }
        String trimmed = role.trim();
        this.role = trimmed.startsWith("ROLE_") ? trimmed.substring("ROLE_".length()) : trimmed;
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
