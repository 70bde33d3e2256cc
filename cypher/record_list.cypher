// One page of a memory's records as they stood at an instant (now when $as_of is null): the
// version live then, forgotten ones only when $include_all.
// Parameters: $memory_id, $type (string or null), $as_of (int ms or null), $include_all (bool),
//   $skip (int), $limit (int). Columns: version (property map), ordered by creation then id.
// Scope: the service has checked read on the memory; only that memory's records are touched.
MATCH (r:Record {memory_id: $memory_id})
WHERE $type IS NULL OR r.type = $type
WITH r, coalesce($as_of, 9223372036854775807) AS t
MATCH (v:RecordVersion)-[:VERSION_OF]->(r)
WHERE v.written_at <= t AND (v.superseded_at IS NULL OR v.superseded_at > t)
  AND ($include_all OR v.forgotten_at IS NULL OR v.forgotten_at > t)
RETURN v {.*, embedding: null, embedding_b: null} AS version
ORDER BY r.created_at, r.id
SKIP $skip LIMIT $limit
