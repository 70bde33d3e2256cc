// Query sandbox only, applied once to the pristine template: a range index on Record.id, for
// loading references and for callers looking a record up by id. Idempotent. Parameters: none.
CREATE INDEX sandbox_record_id IF NOT EXISTS FOR (r:Record) ON (r.id)
