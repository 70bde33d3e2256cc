// Restores one snapshot (a named instant), keeping its id; one whose id exists is returned as it is.
// Parameters: $snapshot (map: id, memory_id, name, message, at). Columns: id, memory_id, name,
//   message, at, created (bool); no row when the memory is absent.
// Scope: the service has checked create and write on the target.
MATCH (m:Memory {id: $snapshot.memory_id})
OPTIONAL MATCH (existing:Snapshot {id: $snapshot.id})
CALL (m, existing) {
  WITH m, existing
  WHERE existing IS NULL
  CREATE (s:Snapshot {id: $snapshot.id, memory_id: $snapshot.memory_id, name: $snapshot.name,
                      message: $snapshot.message, at: $snapshot.at})-[:IN]->(m)
  RETURN s, true AS created
  UNION
  WITH existing
  WHERE existing IS NOT NULL
  RETURN existing AS s, false AS created
}
RETURN s.id AS id, s.memory_id AS memory_id, s.name AS name, s.message AS message, s.at AS at, created
