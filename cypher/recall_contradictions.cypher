// The other side of each disagreement among a recall's results: active records joined to one of them
// by a `contradicts` reference, in either direction.
// Parameters: $ids (record ids of the results). Columns: of (the result's id), id, memory_id; by
//   result, then by id.
// Scope: every memory; the service keeps only the rows whose memory the caller may read.
UNWIND $ids AS wanted
MATCH (r:Record {id: wanted})-[:REFERENCES {rel: 'contradicts'}]-(other:Record)
WHERE other.status = 'active' AND other.id <> wanted
RETURN DISTINCT wanted AS of, other.id AS id, other.memory_id AS memory_id
ORDER BY of, id
