// Stores new embeddings on the Record (indexed) and on its current version (for history scans).
// Parameters: $rows (list of maps: id, embedding). Columns: updated (int).
// Scope: ids come from record_embedding_page for a memory the command may write.
UNWIND $rows AS row
MATCH (r:Record {id: row.id})
MATCH (v:RecordVersion {version: r.version})-[:VERSION_OF]->(r)
SET r.embedding = row.embedding, v.embedding = row.embedding
RETURN count(r) AS updated
