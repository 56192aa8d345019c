package dev.postbox.spring.schedule;

import dev.postbox.cron.DstGapPolicy;
import dev.postbox.cron.MissedFirePolicy;
import dev.postbox.cron.OverlapPolicy;
import dev.postbox.cron.ScheduleMaterializer;
import dev.postbox.spring.internal.PropertyChecks;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Settings of cron schedules: {@code postbox.schedules.<name>.*} declares or overrides schedules,
 * {@code postbox.scheduler.*} controls this node's materialiser. See {@code docs/time.md}.
 */
@ConfigurationProperties("postbox")
public class PostboxScheduleProperties {

    /**
     * Schedules by name, e.g. {@code postbox.schedules.nightly-report.cron=30 2 * * *}. A name that a
     * {@code @PostboxSchedule} also declares overrides the annotation's attributes; other names declare
     * schedules of their own (cron required).
     */
    private final Map<String, Schedule> schedules = new LinkedHashMap<>();

    /** This node's schedule materialiser, which turns due fires into jobs. */
    private final Scheduler scheduler = new Scheduler();

    public Map<String, Schedule> getSchedules() {
        return schedules;
    }

    public Scheduler getScheduler() {
        return scheduler;
    }

    /** One schedule; unset values come from the {@code @PostboxSchedule} of that name, else the defaults. */
    public static class Schedule {

        /** Whether the schedule is declared. False: not registered, and paused if already stored. */
        private boolean enabled = true;

        /** Cron expression: 5 fields, 6 fields with seconds first, or a macro such as @hourly. */
        private @Nullable String cron;

        /** Time zone id whose wall clock the expression follows, e.g. Europe/Berlin; UTC by default. */
        private @Nullable String zone;

        /** Job kind of the fires; by default the annotated handler's kind, else the schedule name. */
        private @Nullable String kind;

        /** Queue of the fires' jobs; 'default' by default. */
        private @Nullable String queue;

        /** JSON payload template; the placeholders ${scheduleName}, ${fireAt} and ${fireKey} are replaced per fire. */
        private @Nullable String payload;

        /** A fire in the missing hour of a spring-forward: shift (run after the gap, the default) or skip. */
        private @Nullable DstGapPolicy dstGap;

        /** Fires missed during downtime or a pause: one catch-up fire (the default), all, or none. */
        private @Nullable MissedFirePolicy missedFires;

        /** allow (the default) or skip-if-running: skip a fire while the previous fire's job is unfinished. */
        private @Nullable OverlapPolicy overlap;

        /** How late a fire may be materialised and still count as on time rather than missed; 1m by default. */
        private @Nullable Duration misfireThreshold;

        /** Tenant the jobs of the fires belong to (docs/tenants.md); the default tenant when unset. */
        private @Nullable String tenant;

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public @Nullable String getCron() {
            return cron;
        }

        public void setCron(@Nullable String cron) {
            this.cron = cron;
        }

        public @Nullable String getZone() {
            return zone;
        }

        public void setZone(@Nullable String zone) {
            this.zone = zone;
        }

        public @Nullable String getKind() {
            return kind;
        }

        public void setKind(@Nullable String kind) {
            this.kind = kind;
        }

        public @Nullable String getQueue() {
            return queue;
        }

        public void setQueue(@Nullable String queue) {
            this.queue = queue;
        }

        public @Nullable String getPayload() {
            return payload;
        }

        public void setPayload(@Nullable String payload) {
            this.payload = payload;
        }

        public @Nullable DstGapPolicy getDstGap() {
            return dstGap;
        }

        public void setDstGap(@Nullable DstGapPolicy dstGap) {
            this.dstGap = dstGap;
        }

        public @Nullable MissedFirePolicy getMissedFires() {
            return missedFires;
        }

        public void setMissedFires(@Nullable MissedFirePolicy missedFires) {
            this.missedFires = missedFires;
        }

        public @Nullable OverlapPolicy getOverlap() {
            return overlap;
        }

        public void setOverlap(@Nullable OverlapPolicy overlap) {
            this.overlap = overlap;
        }

        public @Nullable Duration getMisfireThreshold() {
            return misfireThreshold;
        }

        public void setMisfireThreshold(@Nullable Duration misfireThreshold) {
            this.misfireThreshold = misfireThreshold;
        }

        public @Nullable String getTenant() {
            return tenant;
        }

        public void setTenant(@Nullable String tenant) {
            this.tenant = tenant;
        }
    }

    /** This node's schedule materialiser. */
    public static class Scheduler {

        /**
         * Whether this node materialises due schedule fires into jobs. Unset: it does when the worker
         * runs (postbox.worker.enabled). Run it on any number of nodes: each fire still becomes
         * exactly one job.
         */
        private @Nullable Boolean enabled;

        /** Time between materialiser passes; bounds how late a fire's job is written. */
        private Duration pollInterval = ScheduleMaterializer.DEFAULT_POLL_INTERVAL;

        public @Nullable Boolean getEnabled() {
            return enabled;
        }

        public void setEnabled(@Nullable Boolean enabled) {
            this.enabled = enabled;
        }

        public Duration getPollInterval() {
            return pollInterval;
        }

        public void setPollInterval(Duration pollInterval) {
            this.pollInterval = PropertyChecks.positive(pollInterval, "postbox.scheduler.poll-interval");
        }
    }
}
