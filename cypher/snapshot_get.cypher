// One snapshot by id, to read `as_of` its instant. Parameters: $id.
// Columns: id, memory_id, name, message, at. Scope: the service checks the caller may read the
// snapshot's memory.
MATCH (s:Snapshot {id: $id})
RETURN s.id AS id, s.memory_id AS memory_id, s.name AS name, s.message AS message, s.at AS at
