// One page of a memory's records for an export, every version of each (oldest first), by record id.
// Erased records are gone from the store, so they can never be in a page.
// Parameters: $memory_id, $after (record id; '' for the first page), $limit (int), $slot (the vector
//   property recall reads: the archive carries its model's vectors).
// Columns: id, current (int), created_at, versions (version property maps without embeddings),
// embeddings (one [embedding] per version, in the same order; [null] for a version without one).
// Scope: the export service has judged the memory readable; only its records are touched.
MATCH (r:Record {memory_id: $memory_id})
WHERE r.id > $after
WITH r ORDER BY r.id LIMIT $limit
CALL (r) {
  MATCH (v:RecordVersion)-[:VERSION_OF]->(r)
  WITH v ORDER BY v.version
  RETURN collect(v {.*, embedding: null, embedding_b: null}) AS versions, collect([v[$slot]]) AS embeddings
}
RETURN r.id AS id, r.version AS current, r.created_at AS created_at, versions, embeddings
