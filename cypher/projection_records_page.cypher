// One page of a memory's records for a query sandbox's first load, in (created_at, id) order after a
// keyset, so a scope of any size is read and sent a page at a time, in bounded memory: a seek on the
// record_memory index (memory id, created_at) per page, not a scan of the scope.
// Parameters: $memory_id, $after_at (int: created_at of the last record of the page before; -1 at
//   first), $after_id (its id; "" at first), $limit (int).
// Columns: at, id (the keyset of the row), row (as projection_records' records, one per record).
// Scope: the service asks only for memories the access module judged readable; a target's memory id is
//   read only to decide whether it is in the scope.
MATCH (r:Record)
WHERE r.memory_id = $memory_id AND r.created_at >= $after_at
  AND NOT (r.created_at = $after_at AND r.id <= $after_id)
WITH r
ORDER BY r.created_at, r.id
LIMIT $limit
OPTIONAL MATCH (v:RecordVersion {version: r.version})-[:VERSION_OF]->(r)
RETURN r.created_at AS at, r.id AS id, [
  r.id, r.memory_id, r.type, r.title, r.text, r.status, r.version, r.created_at, r.updated_at, r.written_at,
  r.valid_from, r.valid_to, r.valid_from_ms, r.valid_to_ms, v.writer_kind, v.writer_id, v.writer_type,
  [k IN keys(r) WHERE k STARTS WITH 'attr.' | [k, r[k]]],
  [(r)-[e:REFERENCES]->(t:Record) | [e.rel, e.position, t.id, t.memory_id]]
] AS row
