// Schema: records by the time their current version was written, so a filter-only recall over most
// of the database can walk newest first and stop at its limit instead of sorting every record.
// Idempotent. Parameters: none.
CREATE INDEX record_written IF NOT EXISTS FOR (r:Record) ON (r.written_at)
