// Schema: records of one memory by status, so navigation counts what is not active without a scan.
// Idempotent. Parameters: none.
CREATE INDEX record_memory_status IF NOT EXISTS FOR (r:Record) ON (r.memory_id, r.status)
