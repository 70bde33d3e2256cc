// The standing records of one memory: active, with attributes.standing true, oldest first.
// Parameters: $memory_id, $limit (int). Columns: version (property map without the embedding).
// Scope: the service has checked read on the memory; only that memory's records are read.
MATCH (r:Record {memory_id: $memory_id})
WHERE r.status = 'active' AND r.`attr.standing` = true
MATCH (v:RecordVersion {version: r.version})-[:VERSION_OF]->(r)
RETURN v {.*, embedding: null, embedding_b: null} AS version
ORDER BY r.created_at, r.id
LIMIT $limit
