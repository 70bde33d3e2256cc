// The current records of a readable scope, as the query sandbox holds them: the analyst's fields of
// the Record node, its scalar attributes, the current version's writer, and its references with
// each target's memory (so the service can stub the ones leaving the scope). One row holding a
// list: ten thousand rows cost the Python driver several times what one list of them does.
// Parameters: $scope (memory ids the access module judged readable).
// Columns: records (list, one per record, of [id, memory_id, type, title, text, status, version,
//   created_at, updated_at, written_at, valid_from, valid_to, valid_from_ms, valid_to_ms, writer_kind,
//   writer_id, writer_type, attributes (list of [name, value] per attr.* property),
//   references (list of [rel, position, target id, target memory id])]), unordered.
// Scope: records whose memory_id is in $scope, found per memory through the record_memory index
//   (`created_at IS NOT NULL` lets the seek use it); a target's memory id is read only to decide
//   whether the target is in the scope and never leaves the service.
UNWIND $scope AS scoped
MATCH (r:Record)
WHERE r.memory_id = scoped AND r.created_at IS NOT NULL
OPTIONAL MATCH (v:RecordVersion {version: r.version})-[:VERSION_OF]->(r)
RETURN collect([
  r.id, r.memory_id, r.type, r.title, r.text, r.status, r.version, r.created_at, r.updated_at, r.written_at,
  r.valid_from, r.valid_to, r.valid_from_ms, r.valid_to_ms, v.writer_kind, v.writer_id, v.writer_type,
  [k IN keys(r) WHERE k STARTS WITH 'attr.' | [k, r[k]]],
  [(r)-[e:REFERENCES]->(t:Record) | [e.rel, e.position, t.id, t.memory_id]]
]) AS records
