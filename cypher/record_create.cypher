// Remembers a record: the Record node (current state and search projection), its first
// RecordVersion, and a REFERENCES edge to each named record that exists.
// Parameters: $memory_id, $record (map of Record properties), $version (map of RecordVersion
//   properties), $references (list of maps: rel, record_id, position).
// Columns: id; no row when the memory vanished. Scope: the service has checked write on the memory.
MATCH (m:Memory {id: $memory_id})
CREATE (r:Record)-[:IN]->(m)
SET r = $record
CREATE (v:RecordVersion)-[:VERSION_OF]->(r)
SET v = $version
WITH r
CALL (r) {
  UNWIND $references AS ref
  MATCH (t:Record {id: ref.record_id})
  CREATE (r)-[:REFERENCES {rel: ref.rel, position: ref.position}]->(t)
}
RETURN r.id AS id
