-- Postbox schema, version 14: a time limit per attempt, a finished job's result, and tags.
--
-- Every new column is nullable without a default, so adding it is a catalogue change only (no table
-- rewrite, no scan), on live tables as on the partitioned archive. A job that uses none of them stores
-- three nulls (bits of the null bitmap) and updates no new index: the tag indexes are partial, over
-- rows that have tags.

-- The job's own time limit per attempt (JobRequest.timeLimit), in milliseconds; null: its kind's limit,
-- else the engine's. Carried to the dead letters so that a replayed job keeps it.
ALTER TABLE outbox_job ADD COLUMN time_limit_ms integer;
ALTER TABLE outbox_dead_letter ADD COLUMN time_limit_ms integer;
-- NOT VALID: every existing row is null and satisfies it; validating would scan the table under a lock.
ALTER TABLE outbox_job ADD CONSTRAINT outbox_job_time_limit_ms_check CHECK (time_limit_ms > 0) NOT VALID;
COMMENT ON COLUMN outbox_job.time_limit_ms IS 'Time limit of each attempt of this job in milliseconds (JobRequest.timeLimit); null: the kind''s, else the engine''s limit, else none.';
COMMENT ON COLUMN outbox_dead_letter.time_limit_ms IS 'The job''s own time limit per attempt, kept for a replay.';

-- Tags: key=value labels given at enqueue, each element the text 'key=value' (keys and values are
-- validated by the engine: no '=' in a key). Searched with tags @> ARRAY['customer=42'] and the tenant.
ALTER TABLE outbox_job ADD COLUMN tags text[];
ALTER TABLE outbox_job_archive ADD COLUMN tags text[];
ALTER TABLE outbox_dead_letter ADD COLUMN tags text[];
COMMENT ON COLUMN outbox_job.tags IS 'Labels given at enqueue, each ''key=value'' (JobRequest.tag); null when none. Searched through the partial GIN index outbox_job_tags_idx.';
COMMENT ON COLUMN outbox_job_archive.tags IS 'The job''s tags (see outbox_job.tags).';
COMMENT ON COLUMN outbox_dead_letter.tags IS 'The job''s tags (see outbox_job.tags).';
CREATE INDEX outbox_job_tags_idx ON outbox_job USING gin (tags) WHERE tags IS NOT NULL;
-- On the partitioned archive the index is created on every partition (the daily ones made later too).
CREATE INDEX outbox_job_archive_tags_idx ON outbox_job_archive USING gin (tags) WHERE tags IS NOT NULL;
CREATE INDEX outbox_dead_letter_tags_idx ON outbox_dead_letter USING gin (tags) WHERE tags IS NOT NULL;

-- The result a handler returned with its successful attempt (JobOutcome.done(result)), as JSON; null
-- when it returned none. Only a done job has one: the attempt that completed the job wrote it, earlier
-- failed attempts of a retried job produced none, and a dead letter keeps none.
ALTER TABLE outbox_job_archive ADD COLUMN result jsonb;
COMMENT ON COLUMN outbox_job_archive.result IS 'What the handler''s successful attempt returned (JobOutcome.done(result)), as JSON; null for none, and for cancelled and expired jobs.';

-- An attempt the engine gave up because it ran past its time limit is logged 'timed_out' (charged,
-- then retried or dead-lettered; its detail holds the limit). NOT VALID as in V4: existing rows
-- satisfy the narrower constraint, and new rows are checked.
ALTER TABLE outbox_attempt DROP CONSTRAINT outbox_attempt_outcome_check;
ALTER TABLE outbox_attempt ADD CONSTRAINT outbox_attempt_outcome_check
    CHECK (outcome IN ('done', 'retry', 'dead', 'released', 'lease_expired', 'unstarted', 'stale', 'timed_out')) NOT VALID;
COMMENT ON COLUMN outbox_attempt.outcome IS 'done, retry, dead, released (shutdown, snooze, lease near its end before the start; not charged), lease_expired (started, then the lease expired: charged), unstarted (the lease expired before the attempt started: not charged), stale (fenced off), timed_out (ran past its time limit: charged, retried or dead-lettered; detail.timeLimitMs holds the limit).';
