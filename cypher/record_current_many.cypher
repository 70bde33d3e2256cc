// The current version of several records, for turning recall hits into full records.
// Parameters: $ids (list of record ids). Columns: version (property map without the embedding).
// Scope: the ids come from a scoped search; the service keeps only those in scope.
UNWIND $ids AS wanted
MATCH (rec:Record {id: wanted})
MATCH (v:RecordVersion {version: rec.version})-[:VERSION_OF]->(rec)
RETURN v {.*, embedding: null, embedding_b: null} AS version
