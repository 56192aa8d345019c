-- Postbox schema, version 9: a dead letter's cause, a short code a handler stores with it (a dead
-- outcome's cause, JobOutcome.Dead#withCause) so that it can be found again by that code instead of by
-- searching its error text. HTTP delivery stores 'postbox.endpoint-disabled' with a delivery that died
-- because its endpoint was disabled (410 Gone); enabling the endpoint replays those.
-- Dead letters of before V9 have none: one that died with the text [postbox:endpoint-disabled] in its
-- error (how V1..V8 marked them) gets the code here, so that enabling its endpoint still replays it.

ALTER TABLE outbox_dead_letter ADD COLUMN cause text;
COMMENT ON COLUMN outbox_dead_letter.cause IS 'Short code naming why the job died, set by its handler (e.g. postbox.endpoint-disabled): replay and purge can select by it. Null for most dead letters.';
UPDATE outbox_dead_letter SET cause = 'postbox.endpoint-disabled'
 WHERE strpos(last_error, '[postbox:endpoint-disabled]') > 0;
CREATE INDEX outbox_dead_letter_cause_idx ON outbox_dead_letter (cause, endpoint) WHERE cause IS NOT NULL;
