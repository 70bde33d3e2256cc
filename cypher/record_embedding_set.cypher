// Stores new embeddings in one slot on the Record (indexed) and on its current version (history scans).
// Parameters: $slot (the vector property), $rows (list of maps: id, embedding). Columns: updated (int).
// Scope: ids come from record_embedding_page for a memory the command may write.
// Bumps each touched memory's records_version (recall's vector cache), after the records' locks.
UNWIND $rows AS row
MATCH (r:Record {id: row.id})
MATCH (v:RecordVersion {version: r.version})-[:VERSION_OF]->(r)
SET r[$slot] = row.embedding, v[$slot] = row.embedding
WITH count(r) AS updated, collect(DISTINCT r.memory_id) AS touched
CALL (touched) {
  UNWIND touched AS memory_id
  MATCH (m:Memory {id: memory_id})
  SET m.records_version = coalesce(m.records_version, 0) + 1
}
RETURN updated
