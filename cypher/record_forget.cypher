// Forgets a record: its current version is closed as forgotten, the chain stays, and the Record
// leaves the vector and full-text indexes (its search projection is removed).
// Parameters: $id, $memory_id, $now (int ms). Columns: id, already (bool: it was forgotten before).
// Scope: the service has checked write on the memory and that the record is in it.
// Bumps the memory's records_version (recall's vector cache) and its change_seq, stamped on the record
// (the query sandbox's copies replay by it; record_create says how).
MATCH (r:Record {id: $id, memory_id: $memory_id})
SET r.locked_at = $now
WITH r, r.status = 'forgotten' AS already
MATCH (v:RecordVersion {version: r.version})-[:VERSION_OF]->(r)
FOREACH (_ IN CASE WHEN already THEN [] ELSE [1] END |
  SET v.status = 'forgotten', v.forgotten_at = $now, v.invalidated_at = $now,
      r.status = 'forgotten', r.updated_at = $now)
REMOVE r.embedding, r.embedding_b, r.search_title, r.search_text, r.search_memory, r.locked_at
WITH r, already
CALL (r) {
  MATCH (m:Memory {id: r.memory_id})
  SET m.id = m.id
  SET m.records_version = coalesce(m.records_version, 0) + 1,
      m.change_seq = coalesce(m.change_seq, 0) + 1
  SET r.change_seq = m.change_seq
}
RETURN r.id AS id, already
