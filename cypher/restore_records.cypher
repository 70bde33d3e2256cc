// Restores a batch of records with every version, keeping ids, versions, times and writers. A row
// whose id exists already is skipped (the service compared it first), so a retry writes nothing twice.
// REFERENCES edges are laid afterwards by restore_references, once every target may be there; the
// edges of records already here that awaited a restored one are drawn now, in the same transaction.
// Parameters: $rows (list of maps: record (Record properties), versions (RecordVersion properties)).
// Columns: created (int), made (the ids written, for the usage charge). Scope: the service has checked create and write on the target.
// Bumps each touched memory's records_version (recall's vector cache) and change_seq, stamped on the
// records written (the query sandbox's copies replay by it).
UNWIND $rows AS row
MATCH (m:Memory {id: row.record.memory_id})
OPTIONAL MATCH (existing:Record {id: row.record.id})
WITH m, row, existing
WHERE existing IS NULL
CREATE (r:Record)-[:IN]->(m)
SET r = row.record
WITH m, r, row
CALL (r, row) {
  UNWIND row.versions AS version
  CREATE (v:RecordVersion)-[:VERSION_OF]->(r)
  SET v = version
}
CALL (r) {
  MATCH (w:Awaited {id: r.id})
  CALL (w, r) {
    MATCH (src:Record)-[a:AWAITS]->(w)
    CREATE (src)-[:REFERENCES {rel: a.rel, position: a.position}]->(r)
    WITH DISTINCT src
    MATCH (sm:Memory {id: src.memory_id})
    SET sm.id = sm.id
    SET sm.change_seq = coalesce(sm.change_seq, 0) + 1
    SET src.change_seq = sm.change_seq
  }
  DETACH DELETE w
}
WITH collect(r.id) AS made, collect(DISTINCT m.id) AS touched
CALL (touched, made) {
  UNWIND touched AS memory_id
  MATCH (m:Memory {id: memory_id})
  SET m.id = m.id
  SET m.records_version = coalesce(m.records_version, 0) + 1,
      m.change_seq = coalesce(m.change_seq, 0) + 1
  WITH m
  MATCH (r:Record {memory_id: m.id}) WHERE r.id IN made
  SET r.change_seq = m.change_seq
}
RETURN size(made) AS created, made
