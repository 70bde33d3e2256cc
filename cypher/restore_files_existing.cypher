// Of some file ids, those that exist, with their uploader and (for a file the restorer did not upload)
// the memories whose record versions name it, so the service can judge whether the restorer may read
// it. Parameters: $ids (file ids), $principal (the restorer). Columns: id, sha256, owner, memory_ids.
// Scope: reads facts only; the access module decides.
UNWIND $ids AS wanted
MATCH (f:File {id: wanted})
CALL (f) {
  WITH f
  WHERE coalesce(f.owner, '') <> $principal
  MATCH (v:RecordVersion)
  WHERE v.content_json CONTAINS f.id
  RETURN collect(DISTINCT v.memory_id) AS memory_ids
}
RETURN f.id AS id, f.sha256 AS sha256, coalesce(f.owner, '') AS owner, memory_ids
