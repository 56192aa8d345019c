-- Postbox schema, version 11: a job waiting for its ordering key is out of the claim's way.
--
-- A job with an ordering key runs only when no older job of its key and tenant is live. Before V11
-- such a job stayed in the claim index in its place, and every claim of its queue and tenant read it,
-- fetched its row and probed the ordering index to find it blocked: with 4,950 waiting successors a
-- claim took 20 ms instead of 0.4, with 49,950 half a second, unordered work included.
--
-- Now a job enqueued behind a live job of its key gets sort_at = 'infinity' ("waiting for its key"):
-- the claim reads a lane's index in sort_at order only up to now + 100 s, so it never visits it. When
-- a job leaves the live table (completed, dead-lettered, cancelled), the oldest remaining job of its
-- key is given its claim order back if it was waiting. The engine's claim keeps its "no older live job
-- of my key" check as the guard of the order itself; a periodic sweep gives back the order of any job
-- left waiting with no older job (an enqueue that committed while its predecessor was being deleted
-- sees neither the other's change). The state, run_at and everything else are unchanged.
--
-- Cheap on a live installation: two functions, two triggers and a partial index over the waiting
-- rows only (none exist before this migration: jobs already waiting keep their place in the claim
-- index until the sweep, which does not touch them: they are not waiting in the new sense).

CREATE FUNCTION outbox_job_wait_for_key() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'UPDATE' THEN
        -- run_at or priority moved (a console "run now", say): a waiting job keeps waiting
        IF OLD.sort_at = 'infinity' THEN
            NEW.sort_at := 'infinity';
        END IF;
    ELSIF EXISTS (SELECT 1 FROM outbox_job h
                  WHERE h.ordering_key = NEW.ordering_key
                    AND coalesce(h.tenant, '') = coalesce(NEW.tenant, '')
                    AND h.id < NEW.id) THEN
        NEW.sort_at := 'infinity';
    END IF;
    RETURN NEW;
END;
$$;
COMMENT ON FUNCTION outbox_job_wait_for_key() IS 'An ordered job enqueued behind a live job of its key and tenant waits (sort_at infinity, outside the claim''s index range) until that job leaves.';
-- Fires after outbox_job_sort_at (triggers of one kind fire in name order), so it has the last word.
CREATE TRIGGER outbox_job_wait_for_key BEFORE INSERT OR UPDATE OF run_at, priority ON outbox_job
    FOR EACH ROW WHEN (NEW.ordering_key IS NOT NULL) EXECUTE FUNCTION outbox_job_wait_for_key();

CREATE FUNCTION outbox_job_next_of_key() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE outbox_job w SET sort_at = w.run_at - w.priority * interval '1 second'
     WHERE w.id = (SELECT min(n.id) FROM outbox_job n
                    WHERE n.ordering_key = OLD.ordering_key
                      AND coalesce(n.tenant, '') = coalesce(OLD.tenant, ''))
       AND w.sort_at = 'infinity';
    RETURN NULL;
END;
$$;
COMMENT ON FUNCTION outbox_job_next_of_key() IS 'A job of an ordering key left the live table: the oldest remaining job of its key and tenant, if waiting, gets its claim order back.';
CREATE TRIGGER outbox_job_next_of_key AFTER DELETE ON outbox_job
    FOR EACH ROW WHEN (OLD.ordering_key IS NOT NULL) EXECUTE FUNCTION outbox_job_next_of_key();

-- The sweep's read: each key's oldest waiting job, from the waiting rows only.
CREATE INDEX outbox_job_key_waiting_idx ON outbox_job (ordering_key, (coalesce(tenant, '')), id)
    WHERE sort_at = 'infinity';

-- The functions read outbox_job of this installation, whatever the search_path of the session whose
-- insert or delete fires them (an application may keep Postbox's tables in a schema of their own).
DO $$
DECLARE
    home text := (SELECT n.nspname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                  WHERE c.oid = 'outbox_job'::regclass);
BEGIN
    EXECUTE format('ALTER FUNCTION %I.outbox_job_wait_for_key() SET search_path = %I', home, home);
    EXECUTE format('ALTER FUNCTION %I.outbox_job_next_of_key() SET search_path = %I', home, home);
END
$$;
