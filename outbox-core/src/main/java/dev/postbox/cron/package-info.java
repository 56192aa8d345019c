/**
 * Cron schedules: parsing ({@link dev.postbox.cron.CronSchedule}), immutable definitions ({@link
 * dev.postbox.cron.ScheduleDefinition}), the time rules that turn a cron expression into fire
 * instants ({@link dev.postbox.cron.FireCalculator}, {@link dev.postbox.cron.MissedFirePlanner}) and
 * the deterministic {@link dev.postbox.cron.FireKey} that makes each fire exactly one job.
 *
 * <p>Everything in this package except the database services is a pure function of the instants it
 * is given: no class here reads the system clock.
 */
@NullMarked
package dev.postbox.cron;

import org.jspecify.annotations.NullMarked;
