// Recall's vector cache: per memory, every record recall_vector_exact would score (current, with an
// embedding), so a small scope is scored exactly outside Cypher. The caller stamps the answer with
// the records_version it read before this statement: data newer than its stamp only makes the next
// request load again, never serve stale vectors.
// Parameters: $memory_ids (list of memory ids, each already in a scope the access module computed),
//   $slot (the vector property recall reads).
// Columns: memory_id, ids (list of record ids), vectors (list of embeddings, in the same order).
// Scope: reads only records whose memory_id is in $memory_ids.
UNWIND $memory_ids AS memory_id
CALL (memory_id) {
  MATCH (r:Record)
  WHERE r.memory_id = memory_id AND r.created_at IS NOT NULL
  WITH r, r[$slot] AS embedding
  WHERE embedding IS NOT NULL
  RETURN collect(r.id) AS ids, collect(embedding) AS vectors
}
RETURN memory_id, ids, vectors
