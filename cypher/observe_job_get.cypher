// One job of a memory, as its route reads it. Parameters: $id, $memory_id.
// Columns: id, status, error, record_ids; no row for a job of another memory or none.
MATCH (j:ObserveJob {id: $id, memory_id: $memory_id})
RETURN j.id AS id, j.status AS status, j.error AS error, coalesce(j.record_ids, []) AS record_ids
