package dev.postbox.chaos;

import dev.postbox.cron.MissedFirePolicy;
import dev.postbox.cron.ScheduleDefinition;
import dev.postbox.cron.ScheduleRegistry;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/**
 * The cron schedule as a rolling deploy sees it: the driver registers {@value WorkerMain#SCHEDULE}
 * (every second) before the workers start, then re-registers it every {@code flipEvery} with its
 * zone switched between {@code UTC} and {@code Etc/UTC}. The fire instants are the same in both
 * zones, but a zone change is a timing change, so each registration restarts the schedule from the
 * first fire after now. Together with the cron node ({@link CronNodeMain}), whose materialiser runs
 * {@value CronNodeMain#AHEAD_SECONDS} s ahead, that plans fires a second time, and only the fire key
 * keeps each fire one job (N schedulers with skewed clocks, one job per fire).
 *
 * <p>The checker's expected fires come from here (the driver's clock and the definition): one per
 * second from {@link #firstExpected()} to {@link #lastExpected()}.
 */
final class CronDeploys {

    static final String FIRE_AT = "fireAt";

    private final ScheduleRegistry registry;
    private final List<Instant> flips = new ArrayList<>();
    private Instant registeredAt;
    private Instant pausedAt;
    private boolean utc = true;

    CronDeploys(DataSource ds) {
        this.registry = new ScheduleRegistry(ds);
    }

    static ScheduleDefinition definition(boolean utc) {
        return ScheduleDefinition.builder(WorkerMain.SCHEDULE)
                .cron("* * * * * *")
                .zone(utc ? "UTC" : "Etc/UTC")
                .kind(WorkerMain.CRON)
                .missedFirePolicy(MissedFirePolicy.ALL)
                .payloadTemplate("{\"" + FIRE_AT + "\":\"" + ScheduleDefinition.FIRE_AT_PLACEHOLDER + "\"}")
                .build();
    }

    synchronized void register() {
        registry.register(definition(utc));
        registeredAt = Instant.now();
    }

    /** Re-registers the schedule with the other zone (a timing change). */
    synchronized void flip() {
        utc = !utc;
        Instant at = Instant.now();
        registry.register(definition(utc));
        flips.add(at);
    }

    synchronized void pause() {
        registry.pause(WorkerMain.SCHEDULE);
        pausedAt = Instant.now();
    }

    /** Whether the run has a schedule (only runs with every kind of traffic do). */
    synchronized boolean registered() {
        return registeredAt != null;
    }

    /** The first fire owed: 2 s after registration (the workers' materialisers may start later). */
    synchronized Instant firstExpected() {
        return registeredAt.plusSeconds(2);
    }

    /** The last fire owed: 1 s before the pause. */
    synchronized Instant lastExpected() {
        return pausedAt == null ? registeredAt : pausedAt.minusSeconds(1);
    }

    /**
     * Whether {@code fire} is owed: every second in the window. The cron node plans fires {@value
     * CronNodeMain#AHEAD_SECONDS} s ahead, so a re-registration never finds a due fire unplanned (the
     * one case in which the timing-change rule would drop a fire).
     */
    synchronized boolean owed(Instant fire) {
        return !fire.isBefore(firstExpected()) && !fire.isAfter(lastExpected());
    }

    synchronized int flips() {
        return flips.size();
    }
}
