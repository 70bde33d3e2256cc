// Forgets a record: its current version is closed as forgotten, the chain stays, and the Record
// leaves the vector and full-text indexes (its search projection is removed).
// Parameters: $id, $memory_id, $now (int ms). Columns: id, already (bool: it was forgotten before).
// Scope: the service has checked write on the memory and that the record is in it.
MATCH (r:Record {id: $id, memory_id: $memory_id})
SET r.locked_at = $now
WITH r, r.status = 'forgotten' AS already
MATCH (v:RecordVersion {version: r.version})-[:VERSION_OF]->(r)
FOREACH (_ IN CASE WHEN already THEN [] ELSE [1] END |
  SET v.status = 'forgotten', v.forgotten_at = $now, v.invalidated_at = $now,
      r.status = 'forgotten', r.updated_at = $now)
REMOVE r.embedding, r.search_title, r.search_text, r.search_memory, r.locked_at
RETURN r.id AS id, already
