package dev.postbox.chaos;

import dev.postbox.chaos.fleet.Incarnation;
import dev.postbox.chaos.fleet.WorkerLogs;
import java.io.IOException;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import javax.sql.DataSource;

/**
 * Jepsen total-queue style checker, from independent observations only: the intents the producer
 * tried (with its transactions' outcomes), the effects the handlers and the receiver recorded under
 * the payload's own {@code tx} and {@code seq}, every request the receiver saw, the cron fires the
 * handler saw, and the handler starts the workers printed. Postbox's tables are read only for what
 * they are the subject of: jobs still live at the end, dead letters, and the attempts the engine
 * charged.
 *
 * <p>This class runs the counts on one connection, in an order that matters (the attempt tables
 * first; the commit outcomes the producer could not observe before any count of intents) and fills
 * the result; each family of counters is its own class: {@link EffectCheck} (lost, duplicated,
 * ghosts, latency), {@link KeyOrderCheck} (per-key overlaps and commit order), {@link HungCheck}
 * (hung handlers and their time limit), {@link TenantCheck}, {@link BrokerCheck}, {@link AttemptCheck} (charges
 * without a start, poison), {@link EndStateCheck} (dead letters, jobs still live), {@link
 * RateLimitCheck}, {@link TenantRateLimitCheck} and {@link CronCheck}.
 */
final class Checker {

    private final DataSource ds;
    private final CronDeploys cron;
    private final long leaseMillis;
    private List<Long> rateLimitViolationWindows = List.of();
    private List<Long> tenantRateLimitViolationWindows = List.of();

    /** {@code leaseMillis}: the workers' visibility timeout (the hung kinds' bound is their limit plus one lease). */
    Checker(DataSource ds, CronDeploys cron, long leaseMillis) {
        this.ds = ds;
        this.cron = cron;
        this.leaseMillis = leaseMillis;
    }

    ChaosResult check(WorkerLogs logs, List<Incarnation> incarnations) throws SQLException, IOException {
        ChaosResult r = new ChaosResult();
        try (Connection c = ds.getConnection();
                Statement s = c.createStatement()) {
            AttemptCheck.load(c, s, logs, incarnations);
            KeyOrderCheck.load(c, logs, incarnations);
            HungCheck.load(c, logs);
            EffectCheck.resolveCommitOutcomes(s, r);
            EffectCheck.intents(s, r);
            EffectCheck.lostAndDuplicated(s, r);
            TenantCheck.check(s, r);
            EffectCheck.ghosts(s, r);
            BrokerCheck.check(s, r);
            KeyOrderCheck.check(s, r, leaseMillis);
            HungCheck.check(s, r, leaseMillis);
            AttemptCheck.poison(s, r);
            EndStateCheck.check(s, r);
            AttemptCheck.charges(s, logs, r);
            rateLimitViolationWindows = RateLimitCheck.check(s, r);
            tenantRateLimitViolationWindows = TenantRateLimitCheck.check(s, r);
            CronCheck.check(s, cron, r);
            r.latency(EffectCheck.latency(s));
            EffectCheck.deliveries(s, r);
            AttemptCheck.leaseExpiries(s, r);
        }
        return r;
    }

    /** Wall-clock starts of the rate-limit windows that held too many requests (after {@link #check}). */
    List<Long> rateLimitViolationWindows() {
        return rateLimitViolationWindows;
    }

    /** The same for the named tenants' webhook rate limits. */
    List<Long> tenantRateLimitViolationWindows() {
        return tenantRateLimitViolationWindows;
    }

    static long one(Statement s, String sql) throws SQLException {
        try (ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    static TreeMap<String, Long> map(Statement s, String sql) throws SQLException {
        TreeMap<String, Long> m = new TreeMap<>();
        try (ResultSet rs = s.executeQuery(sql)) {
            while (rs.next()) {
                m.put(rs.getString(1), rs.getLong(2));
            }
        }
        return m;
    }

    static TreeMap<String, String> texts(Statement s, String sql) throws SQLException {
        TreeMap<String, String> m = new TreeMap<>();
        try (ResultSet rs = s.executeQuery(sql)) {
            while (rs.next()) {
                m.put(rs.getString(1), String.valueOf(rs.getString(2)));
            }
        }
        return m;
    }

    /** The verdict's failures, {@code name=count}, as {@link #failing} names them. */
    static List<String> failures(ChaosResult r) {
        List<String> f = new ArrayList<>();
        failing(r).forEach((key, count) -> f.add(key + "=" + count));
        return f;
    }

    /**
     * The failure counts that are not 0, by name, each followed by its non-zero parts ({@link
     * ChaosResult#PARTS}). A failure count missing from the result fails: a check that stopped
     * putting it, or a renamed counter, must not pass as a zero.
     */
    static Map<String, Long> failing(ChaosResult r) {
        Map<String, Long> f = new LinkedHashMap<>();
        for (String key : ChaosResult.FAILURES) {
            long count = r.count(key);
            if (count != 0) {
                f.put(key, count);
                for (Map.Entry<String, String> part : ChaosResult.PARTS.entrySet()) {
                    if (part.getValue().equals(key) && r.count(part.getKey()) != 0) {
                        f.put(part.getKey(), r.count(part.getKey()));
                    }
                }
            }
        }
        return f;
    }
}
