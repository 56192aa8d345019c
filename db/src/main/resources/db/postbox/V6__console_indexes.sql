-- Postbox schema, version 4: what the operator console (postbox-console) and the on-call
-- questions need to stay fast on large histories. Every page of the console reads through one of
-- these indexes or one of the earlier ones; see dev.postbox.console.internal.ConsoleStore.
-- Costs on the hot path are kept low on purpose: the archive gets a BRIN index (a few pages, no
-- per-row work beyond a summary update) and partial indexes that only scheduled jobs enter.

-- Dead letters grouped by kind and error fingerprint: the last error's first line, at most 200
-- characters, with UUIDs and numbers of four or more digits replaced by '#', so that
-- "order 81724 not found" and "order 93311 not found" fall into one group while HTTP status codes
-- (three digits) stay apart. Computed once when a job is dead-lettered.
ALTER TABLE outbox_dead_letter ADD COLUMN error_fingerprint text GENERATED ALWAYS AS (
    left(regexp_replace(split_part(coalesce(last_error, ''), E'\n', 1),
        '[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}|[0-9]{4,}', '#', 'g'), 200)
) STORED;
COMMENT ON COLUMN outbox_dead_letter.error_fingerprint IS 'The last error''s first line (200 characters at most) with UUIDs and numbers of 4+ digits replaced by #: groups dead letters that failed the same way.';
-- The groups of one kind, and replay or purge of one group.
CREATE INDEX outbox_dead_letter_group_idx ON outbox_dead_letter (kind, error_fingerprint, dead_at);

-- Finished jobs by time: throughput over the last hour, job search in a time window, endpoint
-- success counts. finished_at grows with insertion order, which is what BRIN summarises well.
CREATE INDEX outbox_job_archive_finished_brin ON outbox_job_archive USING brin (finished_at) WITH (pages_per_range = 16);

-- Recent fires of a schedule wherever its jobs are (only jobs created by schedules enter). Byte
-- order (COLLATE "C"), so that the keys name@<ISO instant> of one schedule form one range in time order.
CREATE INDEX outbox_job_fire_key_idx ON outbox_job ((fire_key COLLATE "C")) WHERE fire_key IS NOT NULL;
CREATE INDEX outbox_job_archive_fire_key_idx ON outbox_job_archive ((fire_key COLLATE "C")) WHERE fire_key IS NOT NULL;
CREATE INDEX outbox_dead_letter_fire_key_idx ON outbox_dead_letter ((fire_key COLLATE "C")) WHERE fire_key IS NOT NULL;

-- Failed deliveries of one endpoint, newest first (the delivery module writes the endpoint into
-- the attempt's detail): last errors, failure counts and latency of an endpoint.
CREATE INDEX outbox_attempt_endpoint_idx ON outbox_attempt ((detail ->> 'endpoint'), finished_at)
    WHERE (detail ->> 'endpoint') IS NOT NULL;
