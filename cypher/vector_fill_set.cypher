// Stores the $target slot's vectors on versions, then gives each record its current version's.
// Parameters: $source, $target (slot properties), $rows (list of maps: id, vectors (list of maps:
// version, vector))). Columns: filled (int, versions written).
// Bumps each touched memory's records_version (recall's vector cache), after the records' locks.
UNWIND $rows AS row
MATCH (r:Record {id: row.id})
CALL (r, row) {
  UNWIND row.vectors AS given
  MATCH (v:RecordVersion {version: given.version})-[:VERSION_OF]->(r)
  WHERE v[$source] IS NOT NULL
  SET v[$target] = given.vector
  RETURN count(v) AS filled
}
OPTIONAL MATCH (current:RecordVersion {version: r.version})-[:VERSION_OF]->(r)
CALL (r, current) {
  WITH r, current
  WHERE r[$source] IS NOT NULL AND r[$target] IS NULL AND current[$target] IS NOT NULL
  SET r[$target] = current[$target]
}
WITH sum(filled) AS filled, collect(DISTINCT r.memory_id) AS touched
CALL (touched) {
  UNWIND touched AS memory_id
  MATCH (m:Memory {id: memory_id})
  SET m.records_version = coalesce(m.records_version, 0) + 1
}
RETURN filled
