package dev.postbox.spring;

import dev.postbox.cron.DstGapPolicy;
import dev.postbox.cron.MissedFirePolicy;
import dev.postbox.cron.OverlapPolicy;
import dev.postbox.spring.internal.PostboxReflectiveProcessor;
import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Repeatable;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.aot.hint.annotation.Reflective;

/**
 * Declares a cron schedule whose fires become jobs, exactly once per fire instant across every node
 * (see {@code docs/time.md}). Repeatable.
 *
 * <p>On an {@link OutboxHandler @OutboxHandler} method the fires are jobs of that handler's kind:
 *
 * <pre>{@code
 * @OutboxHandler("build-report")
 * @PostboxSchedule(name = "nightly-report", cron = "30 2 * * *", zone = "Europe/Berlin")
 * void build(Job job) { ... }
 * }</pre>
 *
 * <p>On any other bean method, the method becomes the handler of the fires' kind: {@link #kind()} if
 * given, else {@code schedule:<name>}. Like an {@code @OutboxHandler} method it may take the payload
 * (the {@link #payload()} template, filled in per fire) and/or the {@link dev.postbox.Job}:
 *
 * <pre>{@code
 * @PostboxSchedule(name = "cleanup", cron = "0 * * * *")
 * void cleanup() { ... }
 * }</pre>
 *
 * <p>Every declared schedule is upserted into {@code outbox_schedule} at start-up; properties {@code
 * postbox.schedules.<name>.*} override the attributes of the schedule of that name. An invalid
 * expression or zone fails the start-up with a message naming the schedule, the expression and the
 * problem. Retries of the fires' jobs follow {@code postbox.handlers.<kind>.*} and {@code
 * postbox.retry.*}.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Repeatable(PostboxSchedules.class)
@Reflective(PostboxReflectiveProcessor.class)
public @interface PostboxSchedule {

    /**
     * The unique schedule name: letters, digits, {@code . _ : -}. It is the first half of every fire
     * key, so renaming a schedule starts a new one.
     */
    String name();

    /**
     * The cron expression: 5 fields (minute hour day-of-month month day-of-week), 6 fields with seconds
     * first ({@code "0,30 * * * * *"} fires every 30 seconds), or a macro such as {@code @hourly} or {@code @daily}.
     */
    String cron();

    /** The zone whose wall clock the expression follows, e.g. {@code Europe/Berlin}; empty means UTC. */
    String zone() default "";

    /**
     * The job kind of the fires. Empty means the handler's kind on an {@code @OutboxHandler} method,
     * else {@code schedule:<name>}.
     */
    String kind() default "";

    /** The queue of the fires' jobs; empty means {@code default}. */
    String queue() default "";

    /**
     * The JSON payload template of each fire; empty means {@code {}}. The placeholders {@code
     * ${scheduleName}}, {@code ${fireAt}} and {@code ${fireKey}} are replaced per fire: put them inside
     * JSON strings, e.g. {@code {"firedAt": "${fireAt}"}}.
     */
    String payload() default "";

    /** A fire in the missing hour of a spring-forward: shifted to the first instant after the gap, or skipped. */
    DstGapPolicy dstGap() default DstGapPolicy.SHIFT;

    /** Fires missed while no node ran or the schedule was paused: one catch-up fire, all of them, or none. */
    MissedFirePolicy missedFires() default MissedFirePolicy.ONE;

    /** Whether a fire is skipped while the job of the previous fire is unfinished. */
    OverlapPolicy overlap() default OverlapPolicy.ALLOW;

    /** How late a fire may be materialised and still count as on time, e.g. {@code "30s"}; empty means 1 minute. */
    String misfireThreshold() default "";
}
