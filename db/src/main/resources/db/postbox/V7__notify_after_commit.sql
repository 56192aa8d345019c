-- Postbox schema, version 7: enqueue no longer notifies inside the business transaction.
--
-- V1's statement trigger ran pg_notify('postbox_job', '') in every transaction that inserted a job.
-- A transaction that has notified takes a database-wide lock at commit, held until its commit
-- record is flushed, so every enqueueing business transaction was serialised behind every other one
-- (pgbench on a 2-core machine, 8 clients: 11k commits/s for a one-row INSERT, 3.3k/s with a
-- notify). Postbox now wakes its own dispatcher in process after the commit and wakes the other
-- processes with coalesced notifications on the same channel, sent from a connection of its own
-- (at most one per postbox.notify-interval). Jobs inserted by plain SQL from other tools no longer
-- wake anyone: the workers' poll interval finds them.
--
-- Rolling upgrade: old processes keep listening on postbox_job and are woken by the new ones; jobs
-- that old processes enqueue after this migration are found by polling until they are replaced.
DROP TRIGGER IF EXISTS outbox_job_notify ON outbox_job;
DROP FUNCTION IF EXISTS outbox_job_notify();
