/**
 * Cron schedules on Spring Boot: {@link dev.postbox.spring.PostboxSchedule @PostboxSchedule} and
 * {@code postbox.schedules.*} declarations upserted at start-up ({@link
 * dev.postbox.spring.schedule.PostboxScheduleRegistrar}), this node's materialiser as a lifecycle
 * bean ({@link dev.postbox.spring.schedule.ScheduleMaterializerLifecycle}) and the schedule list,
 * history, pause and resume behind the admin endpoint ({@link
 * dev.postbox.spring.schedule.PostboxScheduleAdmin}).
 */
@NullMarked
package dev.postbox.spring.schedule;

import org.jspecify.annotations.NullMarked;
