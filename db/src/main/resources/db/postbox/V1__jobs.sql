-- Postbox schema, version 1: jobs, their history, idempotency keys, queues and workers.
-- Flyway-compatible name; apply with Flyway (locations: classpath:db/postbox), Liquibase
-- (sqlFile) or Postbox's own SchemaInstaller. The database clock decides every time.

CREATE SEQUENCE outbox_job_id_seq AS bigint;
COMMENT ON SEQUENCE outbox_job_id_seq IS 'Job ids: unique across live jobs, archive and dead letters.';

CREATE SEQUENCE outbox_lease_token_seq AS bigint;
COMMENT ON SEQUENCE outbox_lease_token_seq IS 'Fencing tokens: every claim of a job takes a new value.';

CREATE TABLE outbox_job (
    id              bigint      PRIMARY KEY DEFAULT nextval('outbox_job_id_seq'),
    queue           text        NOT NULL DEFAULT 'default',
    kind            text        NOT NULL,
    endpoint        text,
    ordering_key    text,
    idempotency_key text,
    fire_key        text,
    payload         jsonb       NOT NULL,
    headers         jsonb,
    priority        smallint    NOT NULL DEFAULT 0 CHECK (priority BETWEEN -100 AND 100),
    state           text        NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'retry', 'running')),
    attempts        integer     NOT NULL DEFAULT 0,
    max_attempts    integer     NOT NULL DEFAULT 8 CHECK (max_attempts > 0),
    run_at          timestamptz NOT NULL DEFAULT now(),
    sort_at         timestamptz NOT NULL,
    lane            smallint    GENERATED ALWAYS AS (CASE WHEN priority > 0 THEN 1 WHEN priority < 0 THEN -1 ELSE 0 END) STORED,
    lease_owner     text,
    lease_token     bigint,
    lease_until     timestamptz,
    last_error      text,
    created_at      timestamptz NOT NULL DEFAULT now(),
    started_at      timestamptz,
    expires_at      timestamptz
);
COMMENT ON TABLE outbox_job IS 'Live jobs only: pending, waiting to retry, or running under a lease. Finished jobs move to outbox_job_archive, dead ones to outbox_dead_letter.';
COMMENT ON COLUMN outbox_job.queue IS 'Queue name; workers claim from the queues they serve.';
COMMENT ON COLUMN outbox_job.kind IS 'Handler kind: selects the handler that runs the job.';
COMMENT ON COLUMN outbox_job.endpoint IS 'Target endpoint for HTTP delivery jobs, null for local handlers.';
COMMENT ON COLUMN outbox_job.ordering_key IS 'Jobs sharing an ordering key run one at a time in id (enqueue) order.';
COMMENT ON COLUMN outbox_job.idempotency_key IS 'Caller key; also sent as Idempotency-Key / webhook-id on every attempt.';
COMMENT ON COLUMN outbox_job.fire_key IS 'Schedule fire key (schedule name + fire instant) for jobs materialised from cron.';
COMMENT ON COLUMN outbox_job.payload IS 'Job payload as JSON.';
COMMENT ON COLUMN outbox_job.headers IS 'String headers carried with the job (trace context such as traceparent).';
COMMENT ON COLUMN outbox_job.priority IS 'From -100 to 100. A job of priority p is ordered as if it had become due p seconds earlier: higher first, with a bounded wait for lower ones (aging).';
COMMENT ON COLUMN outbox_job.state IS 'pending (never run), retry (failed, waiting for run_at), running (claimed under a lease).';
COMMENT ON COLUMN outbox_job.attempts IS 'Attempts started so far; charged at claim time so that a job that crashes its worker still exhausts its budget.';
COMMENT ON COLUMN outbox_job.max_attempts IS 'Attempt budget; when exhausted the job moves to outbox_dead_letter.';
COMMENT ON COLUMN outbox_job.run_at IS 'Earliest time (database clock) at which the job may be claimed.';
COMMENT ON COLUMN outbox_job.sort_at IS 'Claim order within a lane: run_at shifted earlier by priority seconds (aging).';
COMMENT ON COLUMN outbox_job.lane IS 'Priority lane: 1 (priority > 0), 0, -1 (priority < 0). Each claim gives every lane a weighted share.';
COMMENT ON COLUMN outbox_job.lease_owner IS 'Worker id holding the lease while running.';
COMMENT ON COLUMN outbox_job.lease_token IS 'Fencing token of the current claim; complete, fail, heartbeat and release must present it.';
COMMENT ON COLUMN outbox_job.lease_until IS 'Lease expiry (database clock); an expired lease is rescued.';
COMMENT ON COLUMN outbox_job.last_error IS 'Error of the last failed attempt.';
COMMENT ON COLUMN outbox_job.started_at IS 'Start of the current (or last) attempt.';
COMMENT ON COLUMN outbox_job.expires_at IS 'After this instant an unstarted job is not run; it is archived as expired.';

-- Every job is inserted, updated at claim and deleted at completion: two dead tuples per job.
-- Vacuum the (small) live table by row count, not by a fraction of its size, so that dead tuples
-- never pile up in front of the claim index scan.
ALTER TABLE outbox_job SET (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 10000,
    autovacuum_vacuum_insert_scale_factor = 0, autovacuum_vacuum_insert_threshold = 10000,
    autovacuum_analyze_scale_factor = 0, autovacuum_analyze_threshold = 10000);

-- The hot claim path: only claimable rows, per lane in claim order.
CREATE INDEX outbox_job_claim_idx ON outbox_job (queue, lane, sort_at, id) WHERE state IN ('pending', 'retry');
CREATE INDEX outbox_job_lease_idx ON outbox_job (lease_until) WHERE state = 'running';
CREATE INDEX outbox_job_ordering_idx ON outbox_job (ordering_key, id) WHERE ordering_key IS NOT NULL;

-- Claim order is run_at shifted by priority seconds; kept by a trigger so that every
-- statement that moves run_at (enqueue, retry, replay, release) keeps it right.
CREATE FUNCTION outbox_job_sort_at() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.sort_at := NEW.run_at - NEW.priority * interval '1 second';
    RETURN NEW;
END;
$$;
CREATE TRIGGER outbox_job_sort_at BEFORE INSERT OR UPDATE OF run_at, priority ON outbox_job
    FOR EACH ROW EXECUTE FUNCTION outbox_job_sort_at();

-- Wake sleeping workers when jobs are inserted; the notification is delivered at commit,
-- so a rolled-back enqueue never wakes anyone.
CREATE FUNCTION outbox_job_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('postbox_job', '');
    RETURN NULL;
END;
$$;
CREATE TRIGGER outbox_job_notify AFTER INSERT ON outbox_job
    FOR EACH STATEMENT EXECUTE FUNCTION outbox_job_notify();

CREATE TABLE outbox_job_archive (
    id              bigint      NOT NULL,
    queue           text        NOT NULL,
    kind            text        NOT NULL,
    endpoint        text,
    ordering_key    text,
    idempotency_key text,
    fire_key        text,
    payload         jsonb       NOT NULL,
    headers         jsonb,
    priority        smallint    NOT NULL,
    state           text        NOT NULL CHECK (state IN ('done', 'cancelled', 'expired')),
    attempts        integer     NOT NULL,
    max_attempts    integer     NOT NULL,
    last_error      text,
    created_at      timestamptz NOT NULL,
    started_at      timestamptz,
    finished_at     timestamptz NOT NULL DEFAULT now()
) PARTITION BY RANGE (finished_at);
COMMENT ON TABLE outbox_job_archive IS 'Finished jobs (done, cancelled, expired), partitioned by day of finished_at. Retention drops whole partitions, never a mass DELETE.';
COMMENT ON COLUMN outbox_job_archive.state IS 'done, cancelled or expired.';
COMMENT ON COLUMN outbox_job_archive.finished_at IS 'When the job finished (database clock); the partition key.';
CREATE TABLE outbox_job_archive_default PARTITION OF outbox_job_archive DEFAULT;
COMMENT ON TABLE outbox_job_archive_default IS 'Safety net for rows outside the daily partitions; the partition maintainer keeps it empty by creating days ahead.';
CREATE INDEX outbox_job_archive_id_idx ON outbox_job_archive (id);

CREATE TABLE outbox_dead_letter (
    id              bigint      PRIMARY KEY,
    queue           text        NOT NULL,
    kind            text        NOT NULL,
    endpoint        text,
    ordering_key    text,
    idempotency_key text,
    fire_key        text,
    payload         jsonb       NOT NULL,
    headers         jsonb,
    priority        smallint    NOT NULL,
    attempts        integer     NOT NULL,
    max_attempts    integer     NOT NULL,
    last_error      text,
    created_at      timestamptz NOT NULL,
    started_at      timestamptz,
    dead_at         timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE outbox_dead_letter IS 'Jobs that exhausted their attempts or failed permanently. Kept until replayed or purged.';
COMMENT ON COLUMN outbox_dead_letter.dead_at IS 'When the job was dead-lettered (database clock).';
CREATE INDEX outbox_dead_letter_dead_at_idx ON outbox_dead_letter (dead_at);

CREATE TABLE outbox_idempotency_key (
    idempotency_key text        PRIMARY KEY,
    job_id          bigint      NOT NULL,
    created_at      timestamptz NOT NULL DEFAULT now(),
    expires_at      timestamptz NOT NULL
);
COMMENT ON TABLE outbox_idempotency_key IS 'Idempotency keys with their dedup window: an enqueue with a known, unexpired key returns the existing job instead of a new one.';
COMMENT ON COLUMN outbox_idempotency_key.job_id IS 'The job the key produced (live, archived or dead).';
COMMENT ON COLUMN outbox_idempotency_key.expires_at IS 'End of the dedup window; after it the key may create a new job.';
CREATE INDEX outbox_idempotency_key_expires_idx ON outbox_idempotency_key (expires_at);

CREATE TABLE outbox_attempt (
    job_id       bigint      NOT NULL,
    attempt      integer     NOT NULL,
    worker       text,
    lease_token  bigint,
    started_at   timestamptz,
    finished_at  timestamptz NOT NULL DEFAULT now(),
    outcome      text        NOT NULL CHECK (outcome IN ('done', 'retry', 'dead', 'released', 'lease_expired', 'stale')),
    status_code  integer,
    error        text,
    duration_ms  bigint,
    detail       jsonb
);
COMMENT ON TABLE outbox_attempt IS 'Attempt log: the answer to "what happened to job X". Level configurable (all attempts or failures only).';
COMMENT ON COLUMN outbox_attempt.outcome IS 'done, retry, dead, released (shutdown, not charged), lease_expired (rescued), stale (fenced off).';
COMMENT ON COLUMN outbox_attempt.status_code IS 'HTTP status for delivery attempts.';
COMMENT ON COLUMN outbox_attempt.detail IS 'Delivery details (response headers subset, truncated body, resolved address).';
CREATE INDEX outbox_attempt_job_idx ON outbox_attempt (job_id, attempt);
CREATE INDEX outbox_attempt_finished_idx ON outbox_attempt (finished_at);

CREATE TABLE outbox_queue (
    name            text        PRIMARY KEY,
    paused          boolean     NOT NULL DEFAULT false,
    max_concurrency integer     CHECK (max_concurrency IS NULL OR max_concurrency > 0),
    updated_at      timestamptz NOT NULL DEFAULT now()
);
COMMENT ON COLUMN outbox_queue.max_concurrency IS 'Cluster-wide cap on running jobs of the queue (claimed jobs count), null for none.';
COMMENT ON TABLE outbox_queue IS 'Queue configuration shared by all workers: pause, cluster-wide concurrency cap. A queue without a row is active and uncapped.';

CREATE TABLE outbox_worker (
    id           text        PRIMARY KEY,
    host         text,
    queues       text[]      NOT NULL DEFAULT '{}',
    started_at   timestamptz NOT NULL DEFAULT now(),
    heartbeat_at timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE outbox_worker IS 'Worker registry: one row per running engine, refreshed by its heartbeat.';

CREATE VIEW outbox_job_status AS
SELECT id, queue, kind, CASE WHEN state = 'pending' AND run_at > now() THEN 'scheduled' ELSE state END AS state,
       attempts, max_attempts, run_at, last_error, created_at, NULL::timestamptz AS finished_at
  FROM outbox_job
UNION ALL
SELECT id, queue, kind, state, attempts, max_attempts, NULL, last_error, created_at, finished_at
  FROM outbox_job_archive
UNION ALL
SELECT id, queue, kind, 'dead', attempts, max_attempts, NULL, last_error, created_at, dead_at
  FROM outbox_dead_letter;
COMMENT ON VIEW outbox_job_status IS 'Every job with its state: scheduled, pending, retry, running, done, cancelled, expired, dead.';
