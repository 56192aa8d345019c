package dev.postbox.chaos.incident;

import dev.postbox.PostboxAdmin;
import dev.postbox.QueueStats;
import dev.postbox.chaos.fleet.WorkerFleet;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Every sample interval: the queue's stats as {@link PostboxAdmin} (and the starter's gauges) report them. */
final class IncidentSampler implements Runnable {

    private static final Logger log = LoggerFactory.getLogger(IncidentSampler.class);

    private final IncidentConfig config;
    private final DataSource ds;
    private final PostboxAdmin admin;
    private final long poisonId;
    private final WorkerFleet fleet;
    private final IntSupplier crashes;
    private final IncidentTimeline timeline;
    private volatile boolean running = true;

    IncidentSampler(
            IncidentConfig config,
            DataSource ds,
            PostboxAdmin admin,
            long poisonId,
            WorkerFleet fleet,
            IntSupplier crashes,
            IncidentTimeline timeline) {
        this.config = config;
        this.ds = ds;
        this.admin = admin;
        this.poisonId = poisonId;
        this.fleet = fleet;
        this.crashes = crashes;
        this.timeline = timeline;
    }

    void stop() {
        running = false;
    }

    @Override
    public void run() {
        long interval = config.sampleInterval().toNanos();
        long next = System.nanoTime();
        while (running) {
            try {
                sample();
            } catch (SQLException | RuntimeException e) {
                log.warn("sample failed", e);
            }
            next += interval;
            long sleep = next - System.nanoTime();
            if (sleep > 0) {
                try {
                    TimeUnit.NANOSECONDS.sleep(sleep);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }
    }

    private void sample() throws SQLException {
        long t = System.nanoTime();
        QueueStats q = admin.queues().stream()
                .filter(s -> s.queue().equals("default"))
                .findFirst()
                .orElse(new QueueStats("default", 0, 0, 0, Duration.ZERO, 0, false));
        long dlq = admin.deadLetterCount();
        long effects;
        String poison;
        try (Connection c = ds.getConnection()) {
            try (Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SELECT count(*) FROM incident_effect")) {
                rs.next();
                effects = rs.getLong(1);
            }
            try (PreparedStatement ps = c.prepareStatement("SELECT state, attempts, run_at <= now() FROM outbox_job"
                    + " WHERE id = ? UNION ALL SELECT 'dead', attempts, false FROM outbox_dead_letter WHERE id = ?")) {
                ps.setLong(1, poisonId);
                ps.setLong(2, poisonId);
                try (ResultSet rs = ps.executeQuery()) {
                    if (rs.next()) {
                        String state = rs.getString(1);
                        if (state.equals("pending") && !rs.getBoolean(3)) {
                            state = "scheduled";
                        }
                        poison = state + " " + rs.getInt(2) + "/" + config.poisonBudget();
                    } else {
                        poison = "?";
                    }
                }
            }
        }
        timeline.sample(new IncidentTimeline.Sample(
                t,
                q.due(),
                q.scheduled(),
                q.running(),
                q.oldestDueAge().toMillis(),
                dlq,
                effects,
                crashes.getAsInt(),
                fleet.readyCount(),
                poison));
    }
}
