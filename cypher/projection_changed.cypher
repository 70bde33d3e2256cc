// The records of a readable scope that changed since a copy's version, as projection_records gives
// them: those each memory stamped with a change_seq above the copy's, found through the record_change
// index (a seek per memory, not a scan of the scope).
// Parameters: $since (list of maps: memory_id, seq: the copy's change_seq of each memory in scope).
// Columns: records (list, one row per record as projection_records_page gives it).
// Scope: records whose memory_id is in $since, which holds only the scope the access module judged
//   readable; a target's memory id is read only to decide whether it is in the scope.
UNWIND $since AS held
MATCH (r:Record)
WHERE r.memory_id = held.memory_id AND r.change_seq > held.seq AND r.created_at IS NOT NULL
OPTIONAL MATCH (v:RecordVersion {version: r.version})-[:VERSION_OF]->(r)
RETURN collect([
  r.id, r.memory_id, r.type, r.title, r.text, r.status, r.version, r.created_at, r.updated_at, r.written_at,
  r.valid_from, r.valid_to, r.valid_from_ms, r.valid_to_ms, v.writer_kind, v.writer_id, v.writer_type,
  [k IN keys(r) WHERE k STARTS WITH 'attr.' | [k, r[k]]],
  [(r)-[e:REFERENCES]->(t:Record) | [e.rel, e.position, t.id, t.memory_id]]
]) AS records
