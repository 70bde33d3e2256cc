// Bulk import: remembers a batch of records in one transaction. A row whose id already exists is
// skipped, so a batch replayed after a crash writes nothing twice. References are drawn as
// record_create draws them: an edge to a record that exists, else an AWAITS until it arrives.
// Parameters: $memory_id, $rows (list of maps: record, version, references as in record_create).
// Columns: created (int), made (the ids written, for the usage charge). Scope: the importer has checked write on the memory.
// Bumps the memory's records_version (recall's vector cache) and its change_seq, stamped on each record
// written (the query sandbox's copies replay by it; record_create says how).
MATCH (m:Memory {id: $memory_id})
SET m.id = m.id
SET m.change_seq = coalesce(m.change_seq, 0) + 1
WITH m
UNWIND $rows AS row
OPTIONAL MATCH (existing:Record {id: row.record.id})
WITH m, row, existing
WHERE existing IS NULL
CREATE (r:Record)-[:IN]->(m)
SET r = row.record
SET r.change_seq = m.change_seq
CREATE (v:RecordVersion)-[:VERSION_OF]->(r)
SET v = row.version
WITH r, row
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
CALL (r, row) {
  UNWIND row.references AS ref
  OPTIONAL MATCH (t:Record {id: ref.record_id})
  FOREACH (_ IN CASE WHEN t IS NOT NULL THEN [1] ELSE [] END |
    CREATE (r)-[:REFERENCES {rel: ref.rel, position: ref.position}]->(t))
  FOREACH (_ IN CASE WHEN t IS NULL THEN [1] ELSE [] END |
    MERGE (w:Awaited {id: ref.record_id})
    CREATE (r)-[:AWAITS {rel: ref.rel, position: ref.position}]->(w))
}
WITH collect(r.id) AS made
CALL (made) {
  WITH made WHERE size(made) > 0
  MATCH (m:Memory {id: $memory_id})
  SET m.records_version = coalesce(m.records_version, 0) + 1
}
RETURN size(made) AS created, made
