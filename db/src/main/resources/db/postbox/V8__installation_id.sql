-- Postbox schema, version 8: an installation id, so that the delivery ids Postbox generates are
-- unique per installation and survive a sequence rewind (restore from backup, RESTART of
-- outbox_job_id_seq): a job without an idempotency key is sent as
-- webhook-id postbox-<installation>-<job id>-<created_at in microseconds, base 36>, a fan-out copy as
-- <that id of the event>:<endpoint>. A receiver that deduplicates on webhook-id alone can then take
-- messages from several installations, before and after a restore, without dropping a new one.
-- Jobs created before this migration (created_at < outbox_installation.created_at) keep the ids they
-- were (perhaps already) sent with: postbox-<job id> and <event job id>:<endpoint>.
-- No gen_random_uuid(): PostgreSQL 12 lacks it without pgcrypto. md5 of random() and the clock is
-- random enough to tell installations apart (64 bits kept).

CREATE TABLE outbox_installation (
    id         text        PRIMARY KEY CHECK (id ~ '^[0-9a-z]{1,32}$'),
    created_at timestamptz NOT NULL DEFAULT now(),
    singleton  boolean     NOT NULL DEFAULT true UNIQUE CHECK (singleton)
);
COMMENT ON TABLE outbox_installation IS 'One row: this installation''s id, part of every delivery id Postbox generates (webhook-id of jobs without an idempotency key, fan-out copies), so that ids never collide across installations or after a sequence rewind.';
COMMENT ON COLUMN outbox_installation.id IS 'Random id (16 hex digits) created with the schema. Do not copy it to another installation.';
COMMENT ON COLUMN outbox_installation.created_at IS 'When the id was created: jobs created before it keep the legacy ids postbox-<job id> and <event job id>:<endpoint>, which they may already have been sent with.';
COMMENT ON COLUMN outbox_installation.singleton IS 'Always true: keeps the table at one row.';
INSERT INTO outbox_installation (id) VALUES (left(md5(random()::text || clock_timestamp()::text), 16));

-- A fan-out's progress row is keyed by the event's job id, which a rewound sequence hands out again:
-- the row of an old, completed event would make a new event with the same id look expanded already
-- (its copies never created). The event's generated key tells the two apart: a row whose key is not
-- the running event's belongs to an earlier event and is started afresh. Null for events of before V8.
ALTER TABLE outbox_fanout ADD COLUMN event_key text;
COMMENT ON COLUMN outbox_fanout.event_key IS 'Generated key of the event job (postbox-<installation>-<id>-<created>), null for events of before V8: a row whose key differs from the running event''s is left over from an earlier event with the same id (sequence rewind) and is reset.';
