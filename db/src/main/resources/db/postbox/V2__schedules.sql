-- Postbox schema, version 2: cron schedules and their fire history.
-- Every node runs the materialiser (no leader): it locks due rows FOR UPDATE SKIP LOCKED,
-- enqueues each fire as an ordinary job keyed by its fire key, and advances next_fire_at in the
-- same transaction. The database clock decides when a schedule is due.

CREATE TABLE outbox_schedule (
    name                 text        PRIMARY KEY,
    cron                 text        NOT NULL,
    zone                 text        NOT NULL DEFAULT 'UTC',
    kind                 text        NOT NULL,
    queue                text        NOT NULL DEFAULT 'default',
    payload              jsonb       NOT NULL DEFAULT '{}',
    dst_gap_policy       text        NOT NULL DEFAULT 'SHIFT' CHECK (dst_gap_policy IN ('SHIFT', 'SKIP')),
    missed_fire_policy   text        NOT NULL DEFAULT 'ONE' CHECK (missed_fire_policy IN ('ONE', 'ALL', 'NONE')),
    overlap_policy       text        NOT NULL DEFAULT 'ALLOW' CHECK (overlap_policy IN ('ALLOW', 'SKIP_IF_RUNNING')),
    misfire_threshold_ms bigint      NOT NULL DEFAULT 60000 CHECK (misfire_threshold_ms >= 0),
    paused               boolean     NOT NULL DEFAULT false,
    next_fire_at         timestamptz,
    last_fire_at         timestamptz,
    last_job_id          bigint,
    created_at           timestamptz NOT NULL DEFAULT now(),
    updated_at           timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE outbox_schedule IS 'Cron schedules, upserted from the application''s definitions at start-up. Each fire becomes one job in outbox_job whose idempotency and fire key is name@<fire instant UTC>.';
COMMENT ON COLUMN outbox_schedule.name IS 'Unique schedule name; the first half of every fire key.';
COMMENT ON COLUMN outbox_schedule.cron IS 'Cron expression: 5 fields (Unix), 6 fields with seconds first (Spring), or a macro such as @hourly.';
COMMENT ON COLUMN outbox_schedule.zone IS 'Time zone id whose wall clock the expression follows, e.g. Europe/Berlin.';
COMMENT ON COLUMN outbox_schedule.kind IS 'Job kind (handler) of the jobs the fires create.';
COMMENT ON COLUMN outbox_schedule.queue IS 'Queue of the jobs the fires create.';
COMMENT ON COLUMN outbox_schedule.payload IS 'Payload template; the placeholders scheduleName, fireAt and fireKey (each written as a dollar sign and the name in braces) inside JSON strings are replaced per fire.';
COMMENT ON COLUMN outbox_schedule.dst_gap_policy IS 'SHIFT: a fire in the missing hour of a spring-forward runs at the first instant after the gap; SKIP: it does not run.';
COMMENT ON COLUMN outbox_schedule.missed_fire_policy IS 'Fires older than misfire_threshold_ms when seen (downtime, pause): ONE catch-up fire at the latest missed instant, ALL of them, or NONE.';
COMMENT ON COLUMN outbox_schedule.overlap_policy IS 'ALLOW: every fire is a job; SKIP_IF_RUNNING: a fire is skipped while the job of the previous fire (last_job_id) is unfinished.';
COMMENT ON COLUMN outbox_schedule.misfire_threshold_ms IS 'How late (ms) a fire may be materialised and still count as on time rather than missed.';
COMMENT ON COLUMN outbox_schedule.paused IS 'Paused schedules create no jobs; on resume, the fires missed meanwhile follow missed_fire_policy.';
COMMENT ON COLUMN outbox_schedule.next_fire_at IS 'Next fire instant not yet materialised (database clock decides when it is due); null when the schedule never fires again.';
COMMENT ON COLUMN outbox_schedule.last_fire_at IS 'Latest fire instant materialised as a job.';
COMMENT ON COLUMN outbox_schedule.last_job_id IS 'Job id of the latest materialised fire; used by overlap_policy SKIP_IF_RUNNING.';
COMMENT ON COLUMN outbox_schedule.updated_at IS 'Last change of the definition, pause state or fire state.';

-- The materialiser's scan: due, unpaused schedules in fire order.
CREATE INDEX outbox_schedule_due_idx ON outbox_schedule (next_fire_at) WHERE NOT paused;

-- Fire history: every job created by a schedule, wherever it is now.
CREATE VIEW outbox_schedule_fire AS
    SELECT split_part(fire_key, '@', 1) AS schedule_name,
           split_part(fire_key, '@', 2)::timestamptz AS fire_at,
           id AS job_id, state, attempts, last_error, created_at, NULL::timestamptz AS finished_at
      FROM outbox_job WHERE fire_key IS NOT NULL
    UNION ALL
    SELECT split_part(fire_key, '@', 1), split_part(fire_key, '@', 2)::timestamptz,
           id, state, attempts, last_error, created_at, finished_at
      FROM outbox_job_archive WHERE fire_key IS NOT NULL
    UNION ALL
    SELECT split_part(fire_key, '@', 1), split_part(fire_key, '@', 2)::timestamptz,
           id, 'dead', attempts, last_error, created_at, dead_at
      FROM outbox_dead_letter WHERE fire_key IS NOT NULL;
COMMENT ON VIEW outbox_schedule_fire IS 'Schedule history: one row per materialised fire with its job id and current state (pending, retry, running, done, cancelled, expired, dead).';
