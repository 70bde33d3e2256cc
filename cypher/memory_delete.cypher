// Deletes a memory, its descendants, their grants, records, versions and snapshots.
// Parameters: $id. Columns: memories (list of the ids removed, the named one first).
// Scope: the service has checked delete on the memory.
MATCH (m:Memory {id: $id})
MATCH path = (d:Memory)-[:CHILD_OF*0..]->(m)
WITH d, length(path) AS dist
ORDER BY dist
WITH collect(d) AS doomed
CALL (doomed) {
  UNWIND doomed AS d
  OPTIONAL MATCH (owned)-[:ON|IN]->(d)
  OPTIONAL MATCH (v:RecordVersion)-[:VERSION_OF]->(owned)
  DETACH DELETE v, owned
}
WITH doomed, [d IN doomed | d.id] AS ids
CALL (doomed) {
  UNWIND doomed AS d
  DETACH DELETE d
}
RETURN ids AS memories
