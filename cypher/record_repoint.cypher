// Re-points records at a merged entity, a batch in one transaction: each row appends a version that
// copies the current one (words, attributes, embedding) with new references, stamped with $writer,
// closes the one before as superseded, and logs the change to the run, so a revert finds it.
// The first SET takes the record's write lock; a row whose record moved on since it was read (a
// revision in between) is skipped and not logged, and the service reads it again.
// Parameters: $run_id, $now (int ms), $writer (map: writer_kind, writer_id, writer_type,
//   writer_on_behalf_of, writer_consolidation_id), $rows (list of maps: id, expected (int, the version
//   read), seq (int, its place in the run's log), references_json (string), references (list of maps:
//   rel, record_id, position)), $payer (principal the new versions count against, or null).
// Each new version is charged as its copy's bytes again (charged_bytes comes along with the copy).
// Stamps each record with its memory's next change_seq (the query sandbox's copies replay by it).
// Columns: id, version (the new version), memory_id, bytes (for the usage charge). Scope: the service has checked write on each row's memory.
MATCH (c:Consolidation {id: $run_id})
UNWIND $rows AS row
MATCH (r:Record {id: row.id})
SET r.locked_at = $now
WITH c, r, row
WHERE r.version = row.expected AND r.status = 'active'
MATCH (old:RecordVersion {version: row.expected})-[:VERSION_OF]->(r)
CREATE (v:RecordVersion)-[:VERSION_OF]->(r)
SET v = properties(old)
SET v += $writer
SET v.version = row.expected + 1, v.supersedes = row.expected, v.status = 'active', v.written_at = $now,
    v.invalidated_at = null, v.superseded_at = null, v.forgotten_at = null,
    v.references_json = row.references_json, v.charged_to = $payer, v.charged_records = 0
SET old.status = 'superseded', old.superseded_at = $now, old.invalidated_at = coalesce(old.invalidated_at, $now)
SET r.version = row.expected + 1, r.updated_at = $now, r.written_at = $now
REMOVE r.locked_at
CREATE (:ConsolidationChange {run_id: $run_id, seq: row.seq, record_id: r.id, action: 'superseded',
                              before: row.expected, after: row.expected + 1, at: $now})-[:OF]->(c)
WITH r, row, v
CALL (r) {
  MATCH (r)-[stale:REFERENCES|AWAITS]->()
  DELETE stale
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
CALL (r) {
  MATCH (m:Memory {id: r.memory_id})
  SET m.id = m.id
  SET m.change_seq = coalesce(m.change_seq, 0) + 1
  SET r.change_seq = m.change_seq
}
RETURN r.id AS id, r.version AS version, r.memory_id AS memory_id, coalesce(v.charged_bytes, 0) AS bytes
