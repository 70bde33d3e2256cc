// A memory's runs, newest first. Parameters: $memory_id. Columns: run (property map).
// Scope: the service has checked read on the memory.
MATCH (c:Consolidation {memory_id: $memory_id})
RETURN properties(c) AS run
ORDER BY c.started_at DESC, c.id DESC
