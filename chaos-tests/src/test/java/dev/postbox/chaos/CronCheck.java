package dev.postbox.chaos;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.TreeMap;

/** The cron schedule's fires: each owed fire seen exactly once. */
final class CronCheck {

    private CronCheck() {}

    /**
     * Cron: the fires owed come from the driver's clock and the schedule's definition ({@link
     * CronDeploys#owed}); each owed fire must have exactly one effect, and no fire more than one.
     */
    static void check(Statement s, CronDeploys cron, ChaosResult r) throws SQLException {
        TreeMap<Instant, Long> seen = new TreeMap<>();
        try (ResultSet rs = s.executeQuery("SELECT fire_at, count(*) FROM chaos_cron_fire GROUP BY 1")) {
            while (rs.next()) {
                seen.put(rs.getTimestamp(1).toInstant(), rs.getLong(2));
            }
        }
        long owed = 0;
        long missing = 0;
        if (cron.registered()) {
            Instant first = cron.firstExpected().plusSeconds(1).truncatedTo(ChronoUnit.SECONDS);
            for (Instant t = first; !t.isAfter(cron.lastExpected()); t = t.plusSeconds(1)) {
                if (cron.owed(t)) {
                    owed++;
                    if (!seen.containsKey(t)) {
                        missing++;
                    }
                }
            }
        }
        long duplicated = seen.values().stream().filter(n -> n > 1).count();
        r.put("cronFiresOwed", owed);
        r.put("cronFiresSeen", (long) seen.size());
        r.put("cronMissingFires", missing);
        r.put("cronDuplicatedFires", duplicated);
        r.put("cronMisfires", missing + duplicated);
        r.put("cronReRegistrations", (long) cron.flips());
    }
}
