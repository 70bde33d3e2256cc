// Of a restore batch's record ids, those present already, with every version (oldest first), so
// the service can tell a retry (the same versions) from a clash.
// Parameters: $ids. Columns: id, memory_id, versions (version property maps without embeddings).
// Scope: compares only; the restore writes nothing it has not judged.
UNWIND $ids AS wanted
MATCH (r:Record {id: wanted})
CALL (r) {
  MATCH (v:RecordVersion)-[:VERSION_OF]->(r)
  WITH v ORDER BY v.version
  RETURN collect(v {.*, embedding: null, embedding_b: null}) AS versions
}
RETURN r.id AS id, r.memory_id AS memory_id, versions
