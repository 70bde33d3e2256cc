// Schema: records are listed per memory. Idempotent. Parameters: none.
CREATE INDEX record_memory IF NOT EXISTS FOR (r:Record) ON (r.memory_id, r.created_at)
