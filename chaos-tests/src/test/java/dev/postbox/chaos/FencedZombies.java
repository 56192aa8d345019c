package dev.postbox.chaos;

import dev.postbox.chaos.fleet.Incarnation;
import dev.postbox.chaos.fleet.WorkerLogs;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;

/**
 * Zombies fenced, observed without asking the engine: a worker incarnation was SIGSTOPped past its
 * lease; within {@link FaultInjector#RESUME_QUIET} after its SIGCONT (a window in which the fault
 * injector leaves its connections alone) one of its local handlers' transactions rolled back
 * ({@code ROLLBACK} marker), and that job's effect was committed by another incarnation. That is a
 * completion the fencing token refused.
 *
 * <p>Counts: {@code fencedCompletions} (such rollbacks) and {@code zombieStopsFenced} (stops with at
 * least one); the engine's own count of stale-token rejections is reported beside them.
 */
final class FencedZombies {

    record Count(long stops, long stopsFenced, long fencedCompletions) {}

    private FencedZombies() {}

    static Count count(List<Incarnation> incarnations, WorkerLogs logs, DataSource ds) throws SQLException {
        long stops = 0;
        long stopsFenced = 0;
        long fenced = 0;
        long quiet = FaultInjector.RESUME_QUIET.toMillis();
        try (Connection c = ds.getConnection();
                PreparedStatement ps = c.prepareStatement(
                        "SELECT worker FROM chaos_effect" + " WHERE target = 'local' AND tx = ? AND seq = ?")) {
            for (Incarnation zombie : incarnations) {
                for (Incarnation.Stop stop : zombie.stops()) {
                    if (stop.resumedAtMillis() == 0) {
                        continue;
                    }
                    stops++;
                    long n = 0;
                    for (WorkerLogs.Rollback r : logs.rollbacks(zombie.workerId())) {
                        boolean afterResume = r.atMillis() >= stop.resumedAtMillis()
                                && r.atMillis() <= stop.resumedAtMillis() + quiet;
                        if (afterResume && appliedElsewhere(ps, r, zombie.workerId())) {
                            n++;
                        }
                    }
                    fenced += n;
                    if (n > 0) {
                        stopsFenced++;
                    }
                }
            }
        }
        return new Count(stops, stopsFenced, fenced);
    }

    private static boolean appliedElsewhere(PreparedStatement ps, WorkerLogs.Rollback r, String zombie)
            throws SQLException {
        ps.setLong(1, r.tx());
        ps.setLong(2, r.seq());
        try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                if (!zombie.equals(rs.getString(1))) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * For the unfenced-completion control: duplicated local effects (keys applied more than once)
     * with at least one application by a worker incarnation that had been SIGSTOPped.
     */
    static Map<String, Long> duplicatesByZombies(List<Incarnation> incarnations, DataSource ds) throws SQLException {
        List<String> stopped = new ArrayList<>();
        for (Incarnation i : incarnations) {
            if (!i.stops().isEmpty()) {
                stopped.add(i.workerId());
            }
        }
        Map<String, Long> out = new HashMap<>();
        try (Connection c = ds.getConnection();
                PreparedStatement ps = c.prepareStatement("SELECT count(*) FILTER (WHERE zombie),"
                        + " count(*) FROM (SELECT bool_or(worker = ANY (?)) AS zombie FROM chaos_effect"
                        + " WHERE target = 'local' GROUP BY tx, seq HAVING count(*) > 1) d")) {
            ps.setArray(1, c.createArrayOf("text", stopped.toArray()));
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                out.put("duplicatedKeysWithAZombieApplication", rs.getLong(1));
                out.put("duplicatedLocalKeys", rs.getLong(2));
            }
        }
        return out;
    }
}
