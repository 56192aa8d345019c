-- Postbox schema, version 4: attempts are charged only for attempts that started.
-- A claim still counts the attempt it takes (attempts + 1), but the rescuer refunds it when the
-- expired lease carries no start mark: a job that sat in the prefetch buffer of a worker that
-- died was never attempted. A job whose lease expired without a start is "suspect": its later
-- attempts are marked started before its handler runs, so a job that kills its worker on every
-- attempt is charged from its second crash on and still runs out of attempts.
-- Both columns have constant defaults: adding them rewrites nothing (PostgreSQL 11+).

ALTER TABLE outbox_job
    ADD COLUMN lease_started boolean NOT NULL DEFAULT false,
    ADD COLUMN unstarted_expiries integer NOT NULL DEFAULT 0;

COMMENT ON COLUMN outbox_job.attempts IS 'Attempts charged. A claim counts the attempt it takes; when its lease expires without a start mark (lease_started) the rescuer refunds it. So the count is the attempts that started, plus the current one while running.';
COMMENT ON COLUMN outbox_job.started_at IS 'When the current (or last) claim was taken; once the attempt''s start is recorded (lease_started), when its handler began.';
COMMENT ON COLUMN outbox_job.lease_started IS 'The current claim''s attempt has started: written by the worker (in batches, or before the handler runs for a suspect job). Reset by every claim. An expired lease with it is charged; one without it is refunded.';
COMMENT ON COLUMN outbox_job.unstarted_expiries IS 'Leases of this job that expired before their attempt started (the worker died or stalled with the job in its buffer). Not charged. A job with one is suspect: its next attempts are marked started before the handler runs. Never charged nor dead-lettered for: the job was a bystander.';

-- The rescuer logs a lease that expired before its attempt started as 'unstarted' (not charged).
-- Rows already in the table satisfy the narrower V1 constraint, so they satisfy this one too:
-- NOT VALID skips re-checking them, a scan of a possibly large table under an exclusive lock that
-- would hold up every completion meanwhile. New rows are checked.
ALTER TABLE outbox_attempt DROP CONSTRAINT outbox_attempt_outcome_check;
ALTER TABLE outbox_attempt ADD CONSTRAINT outbox_attempt_outcome_check
    CHECK (outcome IN ('done', 'retry', 'dead', 'released', 'lease_expired', 'unstarted', 'stale')) NOT VALID;
COMMENT ON COLUMN outbox_attempt.outcome IS 'done, retry, dead, released (shutdown, snooze, lease near its end before the start; not charged), lease_expired (started, then the lease expired: charged), unstarted (the lease expired before the attempt started: not charged), stale (fenced off).';
