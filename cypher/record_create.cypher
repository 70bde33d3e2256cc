// Remembers a record: the Record node (current state and search projection), its first
// RecordVersion, and a REFERENCES edge to each named record that exists; a named record that does not
// exist yet is awaited (AWAITS an Awaited node), and the edges of records that awaited this one are
// drawn now, in the same transaction, so a reference becomes an edge whatever the order. A record whose id exists
// already is left as it is (`created` false): the driver's retry of a commit whose answer was lost,
// or a retry under the same Idempotency-Key (its id derives from the key), finds the first write.
// Parameters: $memory_id, $record (map of Record properties), $version (map of RecordVersion
//   properties), $references (list of maps: rel, record_id, position).
// Columns: id, created (bool); no row when the memory vanished. Scope: the service has checked write.
// Bumps the memory's records_version, the data version recall's vector cache is keyed by, and its
// change_seq, stamped on every record a write changes (the query sandbox's copies replay by it; the
// memory's lock is taken first, so a memory's change_seq follows the order its writes commit in).
MATCH (m:Memory {id: $memory_id})
OPTIONAL MATCH (existing:Record {id: $record.id})
CALL (m, existing) {
  WITH m, existing
  WHERE existing IS NULL
  SET m.id = m.id
  SET m.change_seq = coalesce(m.change_seq, 0) + 1
  CREATE (r:Record)-[:IN]->(m)
  SET r = $record
  SET r.change_seq = m.change_seq
  CREATE (v:RecordVersion)-[:VERSION_OF]->(r)
  SET v = $version
  WITH r
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
  CALL (r) {
    UNWIND $references AS ref
    OPTIONAL MATCH (t:Record {id: ref.record_id})
    FOREACH (_ IN CASE WHEN t IS NOT NULL THEN [1] ELSE [] END |
      CREATE (r)-[:REFERENCES {rel: ref.rel, position: ref.position}]->(t))
    FOREACH (_ IN CASE WHEN t IS NULL THEN [1] ELSE [] END |
      MERGE (w:Awaited {id: ref.record_id})
      CREATE (r)-[:AWAITS {rel: ref.rel, position: ref.position}]->(w))
  }
  RETURN count(*) AS made
}
CALL (m, existing) {
  WITH m WHERE existing IS NULL
  SET m.records_version = coalesce(m.records_version, 0) + 1
}
RETURN $record.id AS id, existing IS NULL AS created
