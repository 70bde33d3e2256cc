// A memory's snapshots, oldest first. Parameters: $memory_id.
// Columns: id, memory_id, name, message, at. Scope: the service has checked read on the memory.
MATCH (s:Snapshot {memory_id: $memory_id})
RETURN s.id AS id, s.memory_id AS memory_id, s.name AS name, s.message AS message, s.at AS at
ORDER BY s.at, s.id
