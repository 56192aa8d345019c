package dev.postbox.console.internal;

import dev.postbox.cron.CronSchedule;
import dev.postbox.cron.DstGapPolicy;
import dev.postbox.cron.FireCalculator;
import dev.postbox.spring.schedule.PostboxScheduleAdmin;
import dev.postbox.spring.schedule.PostboxScheduleAdmin.ScheduleView;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The schedules as the console sees and steers them: definitions and pause state from the
 * starter's {@link PostboxScheduleAdmin}, the next fires computed from the definition, the recent
 * fires from {@link ScheduleFireStore#recentFires} (an indexed read; the admin's history view scans the
 * whole archive). The console's one use of the schedule API.
 */
public final class ScheduleAdapter {

    private final PostboxScheduleAdmin admin;
    private final ScheduleFireStore store;

    public ScheduleAdapter(PostboxScheduleAdmin admin, ScheduleFireStore store) {
        this.admin = admin;
        this.store = store;
    }

    /** A schedule with its next and recent fires. */
    public record Schedule(ScheduleView definition, List<Instant> nextFires, List<ScheduleFireStore.Fire> recentFires) {

        /** How many recent fires ended dead, for the list's health column. */
        public long deadFires() {
            return recentFires.stream().filter(f -> "dead".equals(f.state())).count();
        }
    }

    public List<Schedule> schedules(int nextFires, int recentFires) {
        List<Schedule> out = new ArrayList<>();
        for (ScheduleView s : admin.schedules(0)) {
            out.add(new Schedule(s, next(s, nextFires), store.recentFires(s.name(), recentFires)));
        }
        return out;
    }

    public Optional<Schedule> schedule(String name, int nextFires, int recentFires) {
        return admin.schedule(name, 0)
                .map(s -> new Schedule(s, next(s, nextFires), store.recentFires(s.name(), recentFires)));
    }

    /** @return false when it was paused already; IllegalArgumentException for an unknown name */
    public boolean pause(String name) {
        return admin.pause(name);
    }

    /** @return false when it was not paused; IllegalArgumentException for an unknown name */
    public boolean resume(String name) {
        return admin.resume(name);
    }

    private static List<Instant> next(ScheduleView s, int count) {
        @Nullable Instant first = s.nextFireAt();
        List<Instant> fires = new ArrayList<>();
        if (first == null || count <= 0) {
            return fires;
        }
        fires.add(first);
        try {
            FireCalculator calc = new FireCalculator(
                    CronSchedule.parse(s.name(), s.cron(), s.zone()), DstGapPolicy.valueOf(s.dstGapPolicy()));
            Instant at = first;
            while (fires.size() < count) {
                Optional<Instant> n = calc.nextFireAfter(at);
                if (n.isEmpty()) {
                    break;
                }
                at = n.get();
                fires.add(at);
            }
        } catch (RuntimeException e) {
            // A definition stored by another application version that this one cannot parse: show the stored next fire.
        }
        return fires;
    }
}
