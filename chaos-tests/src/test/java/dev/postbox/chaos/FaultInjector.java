package dev.postbox.chaos;

import dev.postbox.chaos.fleet.Incarnation;
import dev.postbox.chaos.fleet.WorkerFleet;
import dev.postbox.chaos.fleet.WorkerSlot;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The weather: on every tick (uniform in the profile's interval) a SIGKILL of a READY worker, and
 * with their probabilities a SIGSTOP of another one for longer than its lease (a zombie) and a
 * {@code pg_terminate_backend} of a worker's sessions; in soak runs on an owned server, PostgreSQL
 * restarts. Every decision comes from the run's seed.
 */
final class FaultInjector {

    private static final Logger log = LoggerFactory.getLogger(FaultInjector.class);
    /**
     * A worker resumed from SIGSTOP less than this ago keeps its connections: a transaction it rolls
     * back then is a fenced completion, and must not be confused with a terminated session.
     */
    static final Duration RESUME_QUIET = Duration.ofSeconds(5);

    private final ChaosConfig config;
    private final WorkerFleet fleet;
    private final SplittableRandom random;
    private final SplittableRandom restarterRandom;
    private final String adminSessionUrl;
    private final OwnedPostgres server;
    private final Timeline timeline;
    private volatile boolean on = true;
    private Thread ticker;
    private Thread restarter;

    final AtomicInteger kills = new AtomicInteger();
    final AtomicInteger zombieStops = new AtomicInteger();
    final AtomicInteger connectionKillRounds = new AtomicInteger();
    final AtomicLong connectionsKilled = new AtomicLong();

    FaultInjector(
            ChaosConfig config,
            WorkerFleet fleet,
            SplittableRandom random,
            String adminSessionUrl,
            OwnedPostgres server,
            Timeline timeline) {
        this.config = config;
        this.fleet = fleet;
        this.random = random;
        this.restarterRandom = random.split(); // its own stream: the restarter is another thread
        this.adminSessionUrl = adminSessionUrl;
        this.server = server;
        this.timeline = timeline;
    }

    void start() {
        ticker = daemon(this::tick, "chaos-faults");
        if (server != null && !config.server().restartEvery().isZero()) {
            restarter = daemon(this::restartServerPeriodically, "chaos-pg-restarter");
        } else if (!config.server().restartEvery().isZero()) {
            log.warn("PostgreSQL restarts skipped: the run does not own its server (chaos.ownServer)");
        }
    }

    /** Faults off: waits for the threads and resumes every stopped worker. */
    void stop() throws InterruptedException {
        on = false;
        if (ticker != null) {
            ticker.join(15_000);
        }
        if (restarter != null) {
            restarter.join(120_000);
        }
        fleet.resumeAll();
    }

    private void tick() {
        ChaosConfig.Faults f = config.faults();
        while (on) {
            long span = f.tickMax().toMillis() - f.tickMin().toMillis();
            if (!sleepWhileOn(f.tickMin().toMillis() + random.nextLong(span + 1))) {
                return;
            }
            try {
                WorkerSlot victim = null;
                if (f.kills() && fleet.readyCount() >= f.minReadyToKill()) {
                    victim = fleet.pickReady(random, null);
                    if (victim != null) {
                        victim.kill();
                        kills.incrementAndGet();
                    }
                }
                if (random.nextDouble() < f.connectionKillProbability()) {
                    WorkerSlot target = fleet.pickReady(random, victim);
                    if (target != null && !recentlyResumed(target.current())) {
                        terminateBackends(target);
                    }
                }
                if (random.nextDouble() < f.stopProbability()) {
                    WorkerSlot target = fleet.pickReady(random, victim);
                    if (target != null) {
                        long ms = config.engine().visibilityTimeout().toMillis() + 1_000 + random.nextLong(1_500);
                        target.stop(Duration.ofMillis(ms));
                        zombieStops.incrementAndGet();
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (RuntimeException e) {
                log.warn("fault injection step failed", e);
            }
        }
    }

    private static boolean recentlyResumed(Incarnation i) {
        long quietSince = System.currentTimeMillis() - RESUME_QUIET.toMillis();
        return i.stops().stream().anyMatch(s -> s.resumedAtMillis() > quietSince);
    }

    private void terminateBackends(WorkerSlot target) {
        String worker = target.current().workerId();
        try (Connection c = DriverManager.getConnection(adminSessionUrl);
                PreparedStatement ps = c.prepareStatement("SELECT count(*) FILTER (WHERE pg_terminate_backend(pid))"
                        + " FROM pg_stat_activity WHERE application_name = ? AND datname = current_database()")) {
            ps.setString(1, worker);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                long n = rs.getLong(1);
                connectionsKilled.addAndGet(n);
                connectionKillRounds.incrementAndGet();
                timeline.add("pg_terminate_backend", target.name(), worker + ": " + n + " connection(s)");
            }
        } catch (SQLException e) {
            log.warn("pg_terminate_backend for {} failed", worker, e);
        }
    }

    private void restartServerPeriodically() {
        long maxDown = config.server().maxDowntime().toMillis();
        while (on) {
            if (!sleepWhileOn(config.server().restartEvery().toMillis())) {
                return;
            }
            long downMillis = server.restart(restarterRandom.nextLong(maxDown + 1));
            timeline.add("PostgreSQL restart", "-", "down " + downMillis + " ms, port " + server.port());
        }
    }

    /** Sleeps while the faults are on; false when they went off. */
    private boolean sleepWhileOn(long millis) {
        long until = System.currentTimeMillis() + millis;
        while (on && System.currentTimeMillis() < until) {
            try {
                Thread.sleep(Math.min(50, Math.max(1, until - System.currentTimeMillis())));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return on;
    }

    private static Thread daemon(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        t.start();
        return t;
    }
}
