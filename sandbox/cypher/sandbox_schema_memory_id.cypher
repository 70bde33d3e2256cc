// Query sandbox only, applied once to the pristine template: a range index on Memory.id.
// Idempotent. Parameters: none.
CREATE INDEX sandbox_memory_id IF NOT EXISTS FOR (m:Memory) ON (m.id)
