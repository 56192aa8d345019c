/**
 * Micrometer metrics for Postbox: {@link dev.postbox.spring.metrics.PostboxMetricsListener} counts
 * engine events and times jobs, {@link dev.postbox.spring.metrics.PostboxQueueMetrics} publishes
 * queue depth, the age of the oldest claimable job (the SLO) and dead-letter depth from a periodic
 * query. Names are in {@link dev.postbox.spring.metrics.PostboxMetrics}.
 */
@NullMarked
package dev.postbox.spring.metrics;

import org.jspecify.annotations.NullMarked;
