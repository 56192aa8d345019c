-- Postbox schema, version 15: the job insert calls no PL/pgSQL, and a waiting job keeps waiting when
-- its run_at or priority moves.
--
-- Until V14 every insert into outbox_job ran outbox_job_sort_at(), a PL/pgSQL trigger function, only to
-- compute sort_at (run_at shifted earlier by priority seconds). Every business transaction that
-- enqueues paid that call. The engine's insert now writes sort_at itself; the trigger stays for an
-- insert that leaves it null (an operator's SQL, an engine of an earlier version during a rolling
-- upgrade), and PostgreSQL decides that from the trigger's WHEN condition without calling the function.
--
-- The update trigger fired after V12's outbox_job_keep_waiting (triggers of one kind fire in name
-- order), so it overwrote the 'infinity' that marks a job waiting for its ordering key: a waiting job
-- whose run_at or priority moved (a console "run now") went back into the claim's index range, where
-- every claim read it and left it. One function now decides both.

CREATE OR REPLACE FUNCTION outbox_job_sort_at() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'UPDATE' AND OLD.sort_at = 'infinity' AND NEW.ordering_key IS NOT NULL THEN
        NEW.sort_at := 'infinity';
    ELSE
        NEW.sort_at := NEW.run_at - NEW.priority * interval '1 second';
    END IF;
    RETURN NEW;
END;
$$;
COMMENT ON FUNCTION outbox_job_sort_at() IS 'sort_at: run_at shifted earlier by priority seconds, for an insert that does not set it and for an update of run_at or priority; a job waiting for its ordering key (sort_at infinity) keeps waiting.';

DROP TRIGGER outbox_job_sort_at ON outbox_job;
DROP TRIGGER outbox_job_keep_waiting ON outbox_job;
CREATE TRIGGER outbox_job_sort_at_on_insert BEFORE INSERT ON outbox_job
    FOR EACH ROW WHEN (NEW.sort_at IS NULL) EXECUTE FUNCTION outbox_job_sort_at();
CREATE TRIGGER outbox_job_sort_at_on_update BEFORE UPDATE OF run_at, priority ON outbox_job
    FOR EACH ROW EXECUTE FUNCTION outbox_job_sort_at();
