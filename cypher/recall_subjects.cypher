// What recall compares between candidates to let a later record on the same subject rank above an
// earlier one: the type, the speaker an episode names, when it holds and its vector.
// Parameters: $ids (record ids), $slot (the vector property recall reads). Columns: id, type, speaker, at (int ms, or null), embedding.
// Scope: the ids come from a scoped search; nothing else is read.
UNWIND $ids AS wanted
MATCH (rec:Record {id: wanted})
RETURN rec.id AS id, rec.type AS type, rec.`attr.speaker` AS speaker,
       coalesce(rec.valid_from_ms, rec.written_at) AS at, rec[$slot] AS embedding
