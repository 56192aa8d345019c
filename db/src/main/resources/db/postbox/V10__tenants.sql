-- Postbox schema, version 10: tenants. A job, a webhook endpoint and a schedule may belong to a
-- tenant (null: the default tenant, which is what every row of before V10 belongs to).
-- Idempotency and ordering keys are unique per tenant; claims give every tenant with work a share;
-- a tenant may be paused or capped (running jobs, webhook rate) on its own. docs/tenants.md has the
-- whole model.
--
-- Cheap on a live installation: the added columns are nullable without a default (no rewrite); the
-- default tenant's idempotency keys stay where they were (outbox_idempotency_key, its primary key
-- unchanged, so its unique semantics are exactly those of before), and keys of named tenants get a
-- table of their own. This migration depends on nothing later than V8.

ALTER TABLE outbox_job ADD COLUMN tenant text;
COMMENT ON COLUMN outbox_job.tenant IS 'Tenant the job belongs to; null for the default tenant. Idempotency and ordering keys are unique per tenant, claims are fair across tenants.';
ALTER TABLE outbox_job_archive ADD COLUMN tenant text;
COMMENT ON COLUMN outbox_job_archive.tenant IS 'Tenant of the finished job; null for the default tenant.';
ALTER TABLE outbox_dead_letter ADD COLUMN tenant text;
COMMENT ON COLUMN outbox_dead_letter.tenant IS 'Tenant of the dead job; null for the default tenant.';
ALTER TABLE outbox_schedule ADD COLUMN tenant text;
COMMENT ON COLUMN outbox_schedule.tenant IS 'Tenant of the jobs the fires create; null for the default tenant.';
ALTER TABLE outbox_endpoint ADD COLUMN tenant text;
COMMENT ON COLUMN outbox_endpoint.tenant IS 'Tenant that owns the endpoint; null for the default tenant. Its deliveries count against the tenant''s webhook rate limit.';

-- The fair claim: one index probe per tenant with work finds the tenants (a skip scan over the second
-- column), then each tenant's jobs are read in claim order (lane, sort_at, id) from the same index,
-- so a tenant's backlog is never scanned to reach another tenant's head. The default tenant is ''.
CREATE INDEX outbox_job_tenant_claim_idx ON outbox_job (queue, (coalesce(tenant, '')), lane, sort_at, id)
    WHERE state IN ('pending', 'retry');
-- It replaces V1's claim index (queue, lane, sort_at, id): every claim reads the new one (the default
-- tenant is one more tenant), and one partial index less keeps enqueue and claim as cheap as before.
-- (Dropped below, with V1's ordering index, in this installation's schema.)
-- Per-key order within a tenant: the claim's "no older live job of my key and tenant" probe is one
-- index range. Replaces V1's ordering index (ordering_key, id).
CREATE INDEX outbox_job_tenant_ordering_idx ON outbox_job (ordering_key, (coalesce(tenant, '')), id)
    WHERE ordering_key IS NOT NULL;
-- V1's claim and ordering indexes go, in the schema of the outbox_job this migration altered, never
-- through the search_path: Flyway and Liquibase run the scripts with the schema first and the
-- connection's own path after it, where a bare name would drop another installation's index (one in
-- public, say) whenever this schema lacks its own.
DO $$
DECLARE
    home text := (SELECT n.nspname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                  WHERE c.oid = 'outbox_job'::regclass);
BEGIN
    EXECUTE format('DROP INDEX IF EXISTS %I.outbox_job_claim_idx', home);
    EXECUTE format('DROP INDEX IF EXISTS %I.outbox_job_ordering_idx', home);
END
$$;
-- Running jobs per tenant, for cluster-wide tenant caps (counts at most the tenant's cap of rows).
CREATE INDEX outbox_job_tenant_running_idx ON outbox_job ((coalesce(tenant, ''))) WHERE state = 'running';
-- Admin by tenant (replay, purge) on the dead letters.
CREATE INDEX outbox_dead_letter_tenant_idx ON outbox_dead_letter (tenant, dead_at) WHERE tenant IS NOT NULL;

-- Idempotency keys of named tenants: unique per (tenant, key). The default tenant keeps
-- outbox_idempotency_key, unchanged.
CREATE TABLE outbox_tenant_idempotency_key (
    tenant          text        NOT NULL,
    idempotency_key text        NOT NULL,
    job_id          bigint      NOT NULL,
    created_at      timestamptz NOT NULL DEFAULT now(),
    expires_at      timestamptz NOT NULL,
    PRIMARY KEY (tenant, idempotency_key)
);
COMMENT ON TABLE outbox_tenant_idempotency_key IS 'Idempotency keys of jobs of named tenants, with their dedup window: the same key in two tenants makes two jobs. Keys of the default tenant live in outbox_idempotency_key.';
COMMENT ON COLUMN outbox_tenant_idempotency_key.job_id IS 'The job the key produced (live, archived or dead).';
COMMENT ON COLUMN outbox_tenant_idempotency_key.expires_at IS 'End of the dedup window; after it the key may create a new job.';
CREATE INDEX outbox_tenant_idempotency_key_expires_idx ON outbox_tenant_idempotency_key (expires_at);

-- Per-tenant settings shared by every process. A tenant without a row is active and uncapped.
CREATE TABLE outbox_tenant (
    tenant          text             PRIMARY KEY,
    paused          boolean          NOT NULL DEFAULT false,
    max_running     integer          CHECK (max_running IS NULL OR max_running > 0),
    rate_per_second double precision CHECK (rate_per_second IS NULL OR rate_per_second > 0),
    rate_burst      integer          CHECK (rate_burst IS NULL OR rate_burst > 0),
    updated_at      timestamptz      NOT NULL DEFAULT now()
);
COMMENT ON TABLE outbox_tenant IS 'Tenant settings shared by all workers: pause, cluster-wide cap on running jobs, webhook rate limit. A tenant without a row is active and uncapped. The default tenant is the row with tenant ''''.';
COMMENT ON COLUMN outbox_tenant.paused IS 'A paused tenant''s jobs are not claimed (they wait, holding no worker); other tenants are not affected.';
COMMENT ON COLUMN outbox_tenant.max_running IS 'Cluster-wide cap on the tenant''s running (claimed) jobs, null for none.';
COMMENT ON COLUMN outbox_tenant.rate_per_second IS 'Cluster-wide webhook delivery rate of the tenant (all its endpoints together), on top of each endpoint''s own limit; null for none.';
COMMENT ON COLUMN outbox_tenant.rate_burst IS 'Capacity of the tenant''s webhook token bucket.';
