// One page of a memory's records for a query sandbox's first load, in created_at order after a
// keyset, so a scope of any size is read and sent a page at a time, in bounded memory: each page a
// seek on the record_memory index (memory id, created_at) that reads in the index's own order and
// stops at $limit, not a sort of the memory's records. Records sharing the page's last instant are
// left to the next page by the service, or read whole by projection_records_at. Ordered by both of the
// index's properties, so the planner reads the order from the index (by created_at alone, it sorts).
// Parameters: $memory_id, $after_at (int: records with created_at above it; -1 at first), $limit.
// Columns: at (created_at), row (list: id, memory_id, type, title, text, status, version, created_at,
//   updated_at, written_at, valid_from, valid_to, valid_from_ms, valid_to_ms, writer_kind, writer_id,
//   writer_type, attributes (list of [name, value] per attr.* property), references (list of [rel,
//   position, target id, target memory id])).
// Scope: the service asks only for memories the access module judged readable; a target's memory id is
//   read only to decide whether it is in the scope.
MATCH (r:Record)
WHERE r.memory_id = $memory_id AND r.created_at > $after_at
WITH r
ORDER BY r.memory_id, r.created_at
LIMIT $limit
OPTIONAL MATCH (v:RecordVersion {version: r.version})-[:VERSION_OF]->(r)
RETURN r.created_at AS at, [
  r.id, r.memory_id, r.type, r.title, r.text, r.status, r.version, r.created_at, r.updated_at, r.written_at,
  r.valid_from, r.valid_to, r.valid_from_ms, r.valid_to_ms, v.writer_kind, v.writer_id, v.writer_type,
  [k IN keys(r) WHERE k STARTS WITH 'attr.' | [k, r[k]]],
  [(r)-[e:REFERENCES]->(t:Record) | [e.rel, e.position, t.id, t.memory_id]]
] AS row
