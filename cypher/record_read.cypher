// Reads one record with every version (oldest first); the service picks what the read asks for.
// Parameters: $id. Columns: id, memory_id, current (int), versions (list of version property maps).
// No row when unknown. Scope: the service checks the record is in the memory named in the path
// and that the caller may read that memory.
MATCH (r:Record {id: $id})
CALL (r) {
  MATCH (v:RecordVersion)-[:VERSION_OF]->(r)
  WITH v ORDER BY v.version
  RETURN collect(v {.*, embedding: null, embedding_b: null}) AS versions
}
RETURN r.id AS id, r.memory_id AS memory_id, r.version AS current, versions
