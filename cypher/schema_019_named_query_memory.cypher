// Schema: named queries found and counted per memory. Idempotent. Parameters: none.
CREATE INDEX named_query_memory IF NOT EXISTS FOR (q:NamedQuery) ON (q.memory_id)
