// Schema: snapshots listed and counted per memory. Idempotent. Parameters: none.
CREATE INDEX snapshot_memory IF NOT EXISTS FOR (s:Snapshot) ON (s.memory_id)
