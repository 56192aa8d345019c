/**
 * Micrometer Observations of Postbox's units of work, with trace context carried through the job:
 * {@value dev.postbox.spring.observation.PostboxObservations#ENQUEUE} around each enqueued job,
 * {@value dev.postbox.spring.observation.PostboxObservations#JOB_ATTEMPT} around each handler
 * attempt and {@value dev.postbox.spring.observation.PostboxObservations#WEBHOOK_SEND} around each
 * webhook request. Names and keys are in {@link dev.postbox.spring.observation.PostboxObservations};
 * {@code docs/tracing.md} explains what is propagated.
 */
@NullMarked
package dev.postbox.spring.observation;

import org.jspecify.annotations.NullMarked;
