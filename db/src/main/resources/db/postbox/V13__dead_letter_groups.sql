-- Postbox schema, version 13: dead-letter groups that bring together what failed the same way.
-- V6's fingerprint masked only numbers of four or more digits, so "not enough 'sku-1' in stock for
-- order 1" and "... for order 10" were two groups (60 orders of the demo gave 66 groups for 2 causes).
-- The fingerprint is now the last error's first line (exception type and message) with every UUID,
-- every quoted literal ('...' or "...") and every number, of any length, masked: '#' for UUIDs and
-- numbers, '#' between the same quotes for literals. The HTTP status is kept apart in its own
-- column, error_status (the first "HTTP nnn" of that line), so that 500 and 503 stay two groups; the
-- endpoint is already a column of its own.
-- Both columns are stored generated columns: this migration rewrites outbox_dead_letter once
-- (a few seconds per million dead letters) and rebuilds its group index.

ALTER TABLE outbox_dead_letter DROP COLUMN error_fingerprint; -- drops outbox_dead_letter_group_idx with it
ALTER TABLE outbox_dead_letter ADD COLUMN error_fingerprint text GENERATED ALWAYS AS (
    left(regexp_replace(regexp_replace(regexp_replace(regexp_replace(
        split_part(coalesce(last_error, ''), E'\n', 1),
        '[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}', '#', 'g'),
        '''[^'']*''', '''#''', 'g'),
        '"[^"]*"', '"#"', 'g'),
        '[0-9]+', '#', 'g'), 200)
) STORED;
COMMENT ON COLUMN outbox_dead_letter.error_fingerprint IS 'The last error''s first line (200 characters at most) with UUIDs, quoted literals and every number masked by #: groups dead letters that failed the same way (with kind, endpoint and error_status).';
ALTER TABLE outbox_dead_letter ADD COLUMN error_status smallint GENERATED ALWAYS AS (
    substring(split_part(coalesce(last_error, ''), E'\n', 1) FROM '\mHTTP ([1-5][0-9][0-9])\M')::smallint
) STORED;
COMMENT ON COLUMN outbox_dead_letter.error_status IS 'The HTTP status named by the last error''s first line (its first "HTTP nnn"), null for none: a dead-letter group''s status, so that 500 and 503 stay apart.';
-- The groups of one kind, and replay or purge of one group.
CREATE INDEX outbox_dead_letter_group_idx ON outbox_dead_letter (kind, error_fingerprint, dead_at);
