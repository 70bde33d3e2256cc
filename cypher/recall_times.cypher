// When each of several records holds: its `time.valid_from`, else when it was written, so recall can
// lift the candidates inside a period the question names.
// Parameters: $ids (record ids). Columns: id, at (int ms, or null).
// Scope: the ids come from a scoped search; nothing else is read.
UNWIND $ids AS wanted
MATCH (rec:Record {id: wanted})
RETURN rec.id AS id, coalesce(rec.valid_from_ms, rec.written_at) AS at
