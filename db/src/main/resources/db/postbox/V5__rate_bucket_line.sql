-- Postbox schema, version 4: one line per rate bucket, shared by every process, and the adaptive
-- rate's columns described as they now work (AIMD: cut x 0.7 per 429, linear recovery).
-- Flyway-compatible name; apply with Flyway (locations: classpath:db/postbox), Liquibase
-- (sqlFile) or Postbox's own SchemaInstaller.

ALTER TABLE outbox_rate_bucket ADD COLUMN line_until timestamptz;
COMMENT ON COLUMN outbox_rate_bucket.line_until IS 'End of the bucket''s line: a delivery that gets no permit is snoozed to a slot of the line, one slot per 1 / rate_per_second, given out by every process from here (null until the first), so waiting deliveries wake at the rate, not all together.';

COMMENT ON COLUMN outbox_rate_bucket.tokens IS 'Tokens at updated_at; negative while an endpoint''s Retry-After is being honoured (a 429 at the floor rate).';
COMMENT ON COLUMN outbox_rate_bucket.rate_factor IS 'Adaptive multiplier (0..1] set by the last 429 cut (x 0.7, not below the floor); from throttled_at it climbs back linearly to 1 at throttled_until.';
COMMENT ON COLUMN outbox_rate_bucket.throttled_at IS 'When the recovery from the last cut starts (the cut, or the end of its Retry-After pause); 429s to requests sent before it do not cut again.';
COMMENT ON COLUMN outbox_rate_bucket.throttled_until IS 'When the factor is back at 1 if no other 429 comes; afterwards the full rate applies.';
