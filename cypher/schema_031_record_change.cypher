// Schema: records by memory and change_seq, so a query sandbox's copy is brought up to date by
// seeking the records each memory changed since the copy's version, not by reading the scope.
// Idempotent. Parameters: none.
CREATE INDEX record_change IF NOT EXISTS FOR (r:Record) ON (r.memory_id, r.change_seq)
