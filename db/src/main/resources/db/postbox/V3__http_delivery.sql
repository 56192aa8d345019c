-- Postbox schema, version 3: HTTP delivery. Webhook endpoints, their cluster-wide rate buckets,
-- fan-out progress, and the receiving side's inbox. The database clock decides every time.

CREATE TABLE outbox_endpoint (
    name                 text             PRIMARY KEY CHECK (name ~ '^[A-Za-z][A-Za-z0-9_-]{0,99}$'),
    url                  text             NOT NULL,
    secrets              text[]           NOT NULL CHECK (cardinality(secrets) > 0),
    headers              jsonb            NOT NULL DEFAULT '{}',
    description          text,
    event_types          text[]           NOT NULL DEFAULT '{}',
    connect_timeout_ms   integer          CHECK (connect_timeout_ms > 0),
    read_timeout_ms      integer          CHECK (read_timeout_ms > 0),
    call_timeout_ms      integer          CHECK (call_timeout_ms > 0),
    rate_per_second      double precision CHECK (rate_per_second > 0),
    rate_burst           integer          CHECK (rate_burst > 0),
    max_in_flight        integer          CHECK (max_in_flight > 0),
    retry_base_ms        bigint           CHECK (retry_base_ms > 0),
    retry_cap_ms         bigint           CHECK (retry_cap_ms > 0),
    retry_max_attempts   integer          CHECK (retry_max_attempts > 0),
    state                text             NOT NULL DEFAULT 'enabled' CHECK (state IN ('enabled', 'disabled')),
    disabled_reason      text,
    disabled_at          timestamptz,
    consecutive_failures integer          NOT NULL DEFAULT 0,
    failing_since        timestamptz,
    last_success_at      timestamptz,
    last_failure_at      timestamptz,
    created_at           timestamptz      NOT NULL DEFAULT now(),
    updated_at           timestamptz      NOT NULL DEFAULT now()
);
COMMENT ON TABLE outbox_endpoint IS 'Webhook endpoints: where delivery jobs (outbox_job.endpoint) are POSTed, how they are signed, limited and retried, and whether the endpoint is enabled.';
COMMENT ON COLUMN outbox_endpoint.name IS 'Endpoint name, referenced by outbox_job.endpoint. Starts with a letter; letters, digits, _ and - only (it is part of idempotency keys and webhook-id).';
COMMENT ON COLUMN outbox_endpoint.url IS 'Target URL (http or https), checked by the SSRF guard at registration and again at every delivery.';
COMMENT ON COLUMN outbox_endpoint.secrets IS 'Signing secrets (whsec_<base64>), newest first; one webhook-signature per secret during rotation. Sensitive: never logged; restrict SELECT on this table.';
COMMENT ON COLUMN outbox_endpoint.headers IS 'Custom request headers sent on every delivery (JSON object of strings).';
COMMENT ON COLUMN outbox_endpoint.description IS 'Free text for operators.';
COMMENT ON COLUMN outbox_endpoint.event_types IS 'Event types this endpoint subscribes to for publish() fan-out; ''*'' subscribes to every type.';
COMMENT ON COLUMN outbox_endpoint.connect_timeout_ms IS 'TCP/TLS connect timeout; null for the delivery default.';
COMMENT ON COLUMN outbox_endpoint.read_timeout_ms IS 'Read/write inactivity timeout; null for the delivery default.';
COMMENT ON COLUMN outbox_endpoint.call_timeout_ms IS 'Whole-attempt timeout; null for the delivery default.';
COMMENT ON COLUMN outbox_endpoint.rate_per_second IS 'Cluster-wide token bucket refill rate (permits per second); null for no per-endpoint limit.';
COMMENT ON COLUMN outbox_endpoint.rate_burst IS 'Token bucket capacity: most permits usable at once after an idle period.';
COMMENT ON COLUMN outbox_endpoint.max_in_flight IS 'Most concurrent deliveries to this endpoint per worker process; null for no cap.';
COMMENT ON COLUMN outbox_endpoint.retry_base_ms IS 'Retry backoff base for this endpoint; null for the delivery handler default.';
COMMENT ON COLUMN outbox_endpoint.retry_cap_ms IS 'Retry backoff cap for this endpoint; null for the default.';
COMMENT ON COLUMN outbox_endpoint.retry_max_attempts IS 'Attempt budget of deliveries created for this endpoint; null for the default.';
COMMENT ON COLUMN outbox_endpoint.state IS 'enabled, or disabled (deliveries wait, parked without spending attempts, until enabled).';
COMMENT ON COLUMN outbox_endpoint.disabled_reason IS 'Why the endpoint was disabled: operator, HTTP 410 Gone, or sustained failure.';
COMMENT ON COLUMN outbox_endpoint.disabled_at IS 'When the endpoint was disabled (database clock).';
COMMENT ON COLUMN outbox_endpoint.consecutive_failures IS 'Retryable delivery failures since the last success; drives the sustained-failure disable.';
COMMENT ON COLUMN outbox_endpoint.failing_since IS 'First failure of the current failure streak, null while healthy.';
COMMENT ON COLUMN outbox_endpoint.last_success_at IS 'Last successful delivery recorded after a failure streak (successes are not written one by one).';
COMMENT ON COLUMN outbox_endpoint.last_failure_at IS 'Last failed delivery.';
COMMENT ON COLUMN outbox_endpoint.created_at IS 'Registration time.';
COMMENT ON COLUMN outbox_endpoint.updated_at IS 'Last change of configuration or state.';
CREATE INDEX outbox_endpoint_event_types_idx ON outbox_endpoint USING gin (event_types);

CREATE TABLE outbox_rate_bucket (
    endpoint        text             PRIMARY KEY,
    rate_per_second double precision NOT NULL CHECK (rate_per_second > 0),
    burst           integer          NOT NULL CHECK (burst > 0),
    tokens          double precision NOT NULL,
    updated_at      timestamptz      NOT NULL DEFAULT clock_timestamp(),
    rate_factor     double precision NOT NULL DEFAULT 1 CHECK (rate_factor > 0 AND rate_factor <= 1),
    throttled_at    timestamptz,
    throttled_until timestamptz,
    last_granted    integer          NOT NULL DEFAULT 0
);
COMMENT ON TABLE outbox_rate_bucket IS 'Cluster-wide token buckets, one per rate-limited endpoint (plus ''*'' for the global limit). Every worker leases permits from here in small chunks; refill is computed from the database clock in the leasing UPDATE.';
COMMENT ON COLUMN outbox_rate_bucket.endpoint IS 'Endpoint name (outbox_endpoint.name), or ''*'' for the global bucket shared by all endpoints.';
COMMENT ON COLUMN outbox_rate_bucket.rate_per_second IS 'Configured refill rate, copied from the endpoint (or the global setting) when it changes.';
COMMENT ON COLUMN outbox_rate_bucket.burst IS 'Bucket capacity.';
COMMENT ON COLUMN outbox_rate_bucket.tokens IS 'Tokens at updated_at; negative while an endpoint''s Retry-After is being honoured.';
COMMENT ON COLUMN outbox_rate_bucket.updated_at IS 'Database time of the last lease or change; refill = elapsed seconds * rate * rate_factor.';
COMMENT ON COLUMN outbox_rate_bucket.rate_factor IS 'Adaptive multiplier (0..1] applied while throttled_until is in the future; halved by 429 answers.';
COMMENT ON COLUMN outbox_rate_bucket.throttled_at IS 'When the rate was last lowered (several 429s within a second lower it once).';
COMMENT ON COLUMN outbox_rate_bucket.throttled_until IS 'Until when rate_factor applies; afterwards the full rate is back.';
COMMENT ON COLUMN outbox_rate_bucket.last_granted IS 'Permits granted by the last lease (returned by the leasing UPDATE).';

CREATE TABLE outbox_fanout (
    event_job_id  bigint      PRIMARY KEY,
    event_type    text        NOT NULL,
    last_endpoint text,
    expanded      integer     NOT NULL DEFAULT 0,
    completed_at  timestamptz,
    updated_at    timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE outbox_fanout IS 'Progress of publish() fan-outs: the event job expands subscribers into delivery jobs in batches, each batch committed with its cursor, so a crash resumes where it stopped. Child idempotency keys (<event job id>:<endpoint>) make a re-expanded batch a no-op.';
COMMENT ON COLUMN outbox_fanout.event_job_id IS 'The fan-out job (outbox_job.id) that publish() inserted.';
COMMENT ON COLUMN outbox_fanout.event_type IS 'Published event type.';
COMMENT ON COLUMN outbox_fanout.last_endpoint IS 'Cursor: last endpoint name expanded (endpoints are expanded in name order).';
COMMENT ON COLUMN outbox_fanout.expanded IS 'Delivery jobs created so far.';
COMMENT ON COLUMN outbox_fanout.completed_at IS 'When the expansion finished.';
COMMENT ON COLUMN outbox_fanout.updated_at IS 'Last batch commit.';
CREATE INDEX outbox_fanout_completed_idx ON outbox_fanout (completed_at);

CREATE TABLE postbox_inbox (
    webhook_id        text        PRIMARY KEY,
    webhook_timestamp timestamptz,
    received_at       timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE postbox_inbox IS 'Receiving side: webhook-id of every webhook applied by WebhookInbox, inserted in the same transaction as the receiver''s handler, so a redelivery is a no-op. Purge rows older than the sender''s retry horizon.';
COMMENT ON COLUMN postbox_inbox.webhook_id IS 'The webhook-id (sender''s idempotency key) of an applied webhook.';
COMMENT ON COLUMN postbox_inbox.webhook_timestamp IS 'webhook-timestamp of the attempt that was applied.';
COMMENT ON COLUMN postbox_inbox.received_at IS 'When it was applied (database clock).';
CREATE INDEX postbox_inbox_received_idx ON postbox_inbox (received_at);
