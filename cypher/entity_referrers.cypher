// The active records that refer to a record, each with its current version's references, for a merge
// to point them at the record the duplicate is folded into.
// Parameters: $id (record id). Columns: id, memory_id, version (int), references_json (string).
// Scope: none here; the service re-points only the records of memories the merger may write.
MATCH (r:Record)-[:REFERENCES]->(:Record {id: $id})
WHERE r.status = 'active'
WITH DISTINCT r
MATCH (v:RecordVersion {version: r.version})-[:VERSION_OF]->(r)
RETURN r.id AS id, r.memory_id AS memory_id, r.version AS version, v.references_json AS references_json
ORDER BY r.id
