// Appends a version: the current one is closed as superseded (a forgotten one, brought back by a
// consolidation revert, keeps its forgotten status) and the new one becomes current. Its references
// are drawn anew from the new version: an edge to a record that exists, else an AWAITS until it arrives.
// The first SET takes the record's write lock, so two revisions cannot both build on $expected.
// Parameters: $id, $memory_id, $expected (int, the version the reviser read), $now (int ms),
//   $record (map: the Record's new properties), $version (map: the new RecordVersion),
//   $references (list of maps: rel, record_id, position).
// Columns: id; no row when the record moved on since it was read (the service retries).
// Scope: the service has checked write on the memory and that the record is in it.
// Bumps the memory's records_version (recall's vector cache) and its change_seq, stamped on the record
// (the query sandbox's copies replay by it; record_create says how).
MATCH (r:Record {id: $id, memory_id: $memory_id})
SET r.locked_at = $now
WITH r
WHERE r.version = $expected
MATCH (old:RecordVersion {version: $expected})-[:VERSION_OF]->(r)
SET old.status = CASE old.status WHEN 'forgotten' THEN 'forgotten' ELSE 'superseded' END,
    old.superseded_at = $now, old.invalidated_at = coalesce(old.invalidated_at, $now)
CREATE (v:RecordVersion)-[:VERSION_OF]->(r)
SET v = $version
SET r = $record
WITH r
CALL (r) {
  MATCH (r)-[stale:REFERENCES|AWAITS]->()
  DELETE stale
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
CALL (r) {
  MATCH (m:Memory {id: r.memory_id})
  SET m.id = m.id
  SET m.records_version = coalesce(m.records_version, 0) + 1,
      m.change_seq = coalesce(m.change_seq, 0) + 1
  SET r.change_seq = m.change_seq
}
RETURN r.id AS id
