// Every record of a memory made at one instant, for a first load whose page was all that instant
// (projection_records_page could not step past it): a seek on the record_memory index.
// Parameters: $memory_id, $at (int: created_at).
// Columns: at (created_at), row (as projection_records_page's).
// Scope: the service asks only for memories the access module judged readable.
MATCH (r:Record)
WHERE r.memory_id = $memory_id AND r.created_at = $at
OPTIONAL MATCH (v:RecordVersion {version: r.version})-[:VERSION_OF]->(r)
RETURN r.created_at AS at, [
  r.id, r.memory_id, r.type, r.title, r.text, r.status, r.version, r.created_at, r.updated_at, r.written_at,
  r.valid_from, r.valid_to, r.valid_from_ms, r.valid_to_ms, v.writer_kind, v.writer_id, v.writer_type,
  [k IN keys(r) WHERE k STARTS WITH 'attr.' | [k, r[k]]],
  [(r)-[e:REFERENCES]->(t:Record) | [e.rel, e.position, t.id, t.memory_id]]
] AS row
