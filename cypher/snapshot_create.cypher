// Names an instant of a memory; copies nothing.
// Parameters: $id, $memory_id, $name, $message, $at (int ms). Columns: id, memory_id, name, message, at.
// Scope: the service has checked write on the memory.
MATCH (m:Memory {id: $memory_id})
CREATE (s:Snapshot {id: $id, memory_id: $memory_id, name: $name, message: $message, at: $at})-[:IN]->(m)
RETURN s.id AS id, s.memory_id AS memory_id, s.name AS name, s.message AS message, s.at AS at
