package dev.postbox.chaos;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * The rate-limited endpoint as its receiver sees it: in no 1-s window of arrivals may there be more
 * than {@code rate + burst} requests (every request counts, whatever the receiver answered: each
 * took a permit). That is the promise of a token bucket of that rate and burst, held cluster-wide,
 * measured at the receiver. Bursts of {@link Producer#LIMITED_BURST_SIZE}
 * requests make a limit that is missing or held per process visible.
 *
 * <p>A request that reaches the receiver more than {@link #LATE_MILLIS} after its own {@code
 * webhook-timestamp} (whole seconds, taken when the sender built it, after its permit) was frozen
 * in its sender between permit and send: a worker SIGSTOPped there sends it after SIGCONT, and no
 * limiter can take a granted permit back. Such requests are counted ({@code rateLimitLateRequests})
 * and left out of the windows; every other request counts.
 */
final class RateLimitCheck {

    /** The bound: rate + burst requests in any 1 s. */
    static final long BOUND = (long) ChaosEndpoints.LIMITED_RATE + ChaosEndpoints.LIMITED_BURST;

    /** Arrival more than this after the sender's (whole-second) timestamp: the request was frozen in its sender. */
    static final long LATE_MILLIS = 2_000;

    private RateLimitCheck() {}

    /** Wall-clock ms at which the arrivals of each violating window began (at most 20). */
    static List<Long> check(Statement s, ChaosResult r) throws SQLException {
        Windows w = windows(
                s,
                "SELECT arrival_ms, sent_s FROM chaos_delivery WHERE endpoint = '" + ChaosEndpoints.RX_LIMITED
                        + "' ORDER BY arrival_ms",
                BOUND);
        r.put("rateLimitedRequests", w.requests());
        r.put("rateLimitLateRequests", w.late());
        r.put("rateLimitLateRequestsMaxLagMillis", w.maxLagMillis());
        r.put("rateLimitMaxPerSecond", w.max());
        r.put("rateLimitBound", BOUND);
        r.put("rateLimitMeanPerSecond", w.meanPerSecond());
        r.put("rateLimitViolations", w.violations());
        return w.violationStarts();
    }

    /**
     * The 1 s windows of some requests' arrivals: the most in one window, the arrivals that found
     * {@code bound} already in the second before them (violations) and where such windows began (at
     * most 20), the requests left out as frozen in their sender ({@link #LATE_MILLIS}).
     */
    record Windows(
            long requests,
            long late,
            long maxLagMillis,
            long max,
            double meanPerSecond,
            long violations,
            List<Long> violationStarts) {}

    /** {@code sql} selects {@code arrival_ms, sent_s} of the requests, ordered by arrival. */
    static Windows windows(Statement s, String sql, long bound) throws SQLException {
        List<Long> arrivals = new ArrayList<>();
        long late = 0;
        long maxLag = 0;
        try (ResultSet rs = s.executeQuery(sql)) {
            while (rs.next()) {
                long lag = rs.getLong(1) - rs.getLong(2) * 1000;
                if (!rs.wasNull() && lag > LATE_MILLIS) {
                    late++;
                    maxLag = Math.max(maxLag, lag);
                } else {
                    arrivals.add(rs.getLong(1));
                }
            }
        }
        long max = 0;
        long violations = 0;
        List<Long> windows = new ArrayList<>();
        int from = 0;
        for (int to = 0; to < arrivals.size(); to++) {
            while (arrivals.get(to) - arrivals.get(from) >= 1000) {
                from++;
            }
            long inWindow = to - from + 1;
            max = Math.max(max, inWindow);
            if (inWindow > bound) {
                violations++;
                long windowStart = arrivals.get(from);
                if (windows.size() < 20 && (windows.isEmpty() || windows.get(windows.size() - 1) != windowStart)) {
                    windows.add(windowStart);
                }
            }
        }
        double seconds = arrivals.size() < 2 ? 0 : (arrivals.get(arrivals.size() - 1) - arrivals.get(0)) / 1000.0;
        return new Windows(
                arrivals.size() + late,
                late,
                maxLag,
                max,
                seconds == 0 ? 0.0 : Math.round(arrivals.size() / seconds * 10) / 10.0,
                violations,
                windows);
    }
}
