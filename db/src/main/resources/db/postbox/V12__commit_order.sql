-- Postbox schema, version 12: per-key order is commit order, and a key runs one job at a time
-- whatever commits when.
--
-- Before V12 a job with an ordering key was claimable when no live job of its key and tenant had a
-- lower id. Ids are taken at INSERT, not at COMMIT, so (1) a transaction that enqueued first and
-- committed second ran its job after the later transaction's (a business transaction that enqueues
-- and then locks its aggregate row commits in lock order, not in id order), and (2) a job that became
-- visible while a higher-id job of its key was already running was claimed at once: two jobs of one
-- key ran at the same time.
--
-- Now each ordered job gets a commit sequence, key_seq, at the commit of the transaction that
-- enqueued it. A deferred constraint trigger (it fires at COMMIT, after every statement of the
-- transaction) locks the transaction's keys, takes one value of outbox_job_key_seq and writes it on
-- all the transaction's ordered rows. The key locks are transaction-scoped advisory locks, released
-- after the commit is visible (PostgreSQL makes a commit visible before it releases the
-- transaction's locks). So whenever transaction T2 commits a job of key K after T1 committed one,
-- T2 took K's lock after T1 released it: T2's key_seq is the larger, and any snapshot that sees T2's
-- job also sees T1's. The claim's rule is therefore:
--
--     a job with an ordering key is claimable iff no live job of its key and tenant precedes it in
--     (key_seq, id), and no job of its key and tenant is running.
--
-- which gives commit order per key (id order within one transaction) and one job of a key at a
-- time: a job that becomes visible late sorts after every job already visible. Transactions that
-- overlap without ordering each other (neither waits for the other) may run in either order; the
-- order between them is the order of their commits.
--
-- Deadlocks: the first trigger invocation of a transaction finds all of the transaction's
-- unsequenced ordered rows (other transactions' are invisible to it; every committed ordered row
-- has its key_seq) and locks their keys in sorted order, so two transactions enqueueing keys A, B and
-- B, A never wait for each other in a cycle. While it holds a key lock a committing transaction
-- waits for nothing else but the next key lock. Later invocations find their row sequenced (one
-- primary-key probe) and return. Unordered jobs fire nothing (the trigger's WHEN).
--
-- Waiting for the key (V11's sort_at = 'infinity') moves to the same trigger: a job is marked waiting
-- at commit, when a job of its key committed earlier is still live, so the insert path no longer
-- probes the ordering index per row. The check locks that earlier job's row FOR KEY SHARE (SKIP
-- LOCKED): a deletion of that job then waits for this commit and, through V11's hand-over trigger,
-- sees the new job and gives it its claim order back. A predecessor that is locked right now (being
-- deleted, or its heartbeat) is skipped; when every one is, the job is not marked waiting (always
-- safe: the claim's rule guards the order, the mark only spares the claims a read). This closes the
-- hand-over race V11 left to the rescuer's sweep. Transactions at REPEATABLE READ or SERIALIZABLE
-- skip the mark (a row lock on a row updated since their snapshot would fail their commit).
--
-- Rows live at the upgrade keep id order: they get key_seq 0, before every job enqueued after it.
-- The ALTER TABLE waits for transactions that are inserting jobs, so no row escapes the sequence.
-- Engines older than V12 keep claiming by id during a rolling upgrade: per-key order and one job
-- at a time hold only once every engine runs V12's claim (docs/guarantees.md §6).

CREATE SEQUENCE outbox_job_key_seq AS bigint;
COMMENT ON SEQUENCE outbox_job_key_seq IS 'Commit sequence of ordered jobs: one value per committing transaction, taken under its keys'' locks.';

ALTER TABLE outbox_job ADD COLUMN key_seq bigint;
COMMENT ON COLUMN outbox_job.key_seq IS 'Commit sequence of an ordered job (set at the commit of its enqueue); a key''s jobs run in (key_seq, id) order. Null for unordered jobs.';
COMMENT ON COLUMN outbox_job.ordering_key IS 'Jobs sharing an ordering key (and tenant) run one at a time, in the order their enqueueing transactions committed (key_seq), id order within one transaction.';

UPDATE outbox_job SET key_seq = 0 WHERE ordering_key IS NOT NULL;

-- The claim's "precedes me in (key_seq, id)" probe: one index range. Replaces V10's ordering index.
CREATE INDEX outbox_job_key_order_idx ON outbox_job (ordering_key, (coalesce(tenant, '')), key_seq, id)
    WHERE ordering_key IS NOT NULL;
-- The claim's "a job of my key is running" probe: running ordered jobs only.
CREATE INDEX outbox_job_key_running_idx ON outbox_job (ordering_key, (coalesce(tenant, '')))
    WHERE ordering_key IS NOT NULL AND state = 'running';
-- The commit trigger's read of its own transaction's rows: ordered rows not yet sequenced (none
-- committed, so the index holds only rows of transactions still open).
CREATE INDEX outbox_job_unsequenced_idx ON outbox_job (id) WHERE ordering_key IS NOT NULL AND key_seq IS NULL;

CREATE FUNCTION outbox_job_sequence_keys() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    k record;
    seq bigint;
    first_id bigint;
    waiting boolean;
    read_committed boolean := current_setting('transaction_isolation') = 'read committed';
BEGIN
    IF (SELECT j.key_seq FROM outbox_job j WHERE j.id = NEW.id) IS NOT NULL THEN
        RETURN NULL; -- sequenced by the transaction's first invocation (or the row is gone)
    END IF;
    -- Every key of the transaction, locked in one sorted order.
    FOR k IN SELECT DISTINCT hashtextextended('postbox.key.' || length(coalesce(u.tenant, '')) || ':'
                       || coalesce(u.tenant, '') || u.ordering_key, TG_RELID::bigint) AS h
               FROM outbox_job u WHERE u.ordering_key IS NOT NULL AND u.key_seq IS NULL ORDER BY 1 LOOP
        PERFORM pg_advisory_xact_lock(k.h);
    END LOOP;
    seq := nextval('outbox_job_key_seq');
    FOR k IN SELECT u.ordering_key, coalesce(u.tenant, '') AS t, min(u.id) AS first_id
               FROM outbox_job u WHERE u.ordering_key IS NOT NULL AND u.key_seq IS NULL
              GROUP BY 1, 2 LOOP
        waiting := false;
        IF read_committed THEN
            PERFORM 1 FROM outbox_job h
              WHERE h.ordering_key = k.ordering_key AND coalesce(h.tenant, '') = k.t AND h.key_seq IS NOT NULL
              LIMIT 1 FOR KEY SHARE SKIP LOCKED;
            waiting := FOUND;
        END IF;
        UPDATE outbox_job u SET key_seq = seq,
               sort_at = CASE WHEN waiting OR u.id <> k.first_id THEN 'infinity'::timestamptz ELSE u.sort_at END
         WHERE u.ordering_key = k.ordering_key AND coalesce(u.tenant, '') = k.t AND u.key_seq IS NULL;
    END LOOP;
    RETURN NULL;
END;
$$;
COMMENT ON FUNCTION outbox_job_sequence_keys() IS 'At commit: locks the transaction''s ordering keys in sorted order, gives its ordered jobs one commit sequence value (key_seq) and marks those behind a live job of their key waiting.';
CREATE CONSTRAINT TRIGGER outbox_job_sequence_keys AFTER INSERT ON outbox_job
    DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW WHEN (NEW.ordering_key IS NOT NULL) EXECUTE FUNCTION outbox_job_sequence_keys();

-- V11 marked the job waiting at INSERT; the commit trigger does it now. A waiting job whose run_at or
-- priority moves (a console "run now", say) keeps waiting, as before.
DROP TRIGGER IF EXISTS outbox_job_wait_for_key ON outbox_job;
CREATE TRIGGER outbox_job_keep_waiting BEFORE UPDATE OF run_at, priority ON outbox_job
    FOR EACH ROW WHEN (OLD.sort_at = 'infinity' AND NEW.ordering_key IS NOT NULL)
    EXECUTE FUNCTION outbox_job_wait_for_key();

-- The hand-over (V11): the key's next job is now the first in (key_seq, id) order.
CREATE OR REPLACE FUNCTION outbox_job_next_of_key() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE outbox_job w SET sort_at = w.run_at - w.priority * interval '1 second'
     WHERE w.id = (SELECT n.id FROM outbox_job n
                    WHERE n.ordering_key = OLD.ordering_key
                      AND coalesce(n.tenant, '') = coalesce(OLD.tenant, '')
                    ORDER BY n.key_seq, n.id LIMIT 1)
       AND w.sort_at = 'infinity';
    RETURN NULL;
END;
$$;

-- The function reads outbox_job of this installation, whatever the search_path of the committing
-- session; V10's ordering index goes, in that schema (never through the search_path: see V10).
DO $$
DECLARE
    home text := (SELECT n.nspname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                  WHERE c.oid = 'outbox_job'::regclass);
BEGIN
    EXECUTE format('ALTER FUNCTION %I.outbox_job_sequence_keys() SET search_path = %I', home, home);
    EXECUTE format('ALTER FUNCTION %I.outbox_job_next_of_key() SET search_path = %I', home, home);
    EXECUTE format('DROP INDEX IF EXISTS %I.outbox_job_tenant_ordering_idx', home);
END
$$;
