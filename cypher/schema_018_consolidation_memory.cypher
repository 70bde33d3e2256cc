// Schema: consolidation runs found and counted per memory. Idempotent. Parameters: none.
CREATE INDEX consolidation_memory IF NOT EXISTS FOR (c:Consolidation) ON (c.memory_id)
