// What the cross-encoder reads of each candidate: its title and the start of its words, and whether
// its valid time has ended (such a record may not be lifted above one still valid).
// Parameters: $ids (record ids), $chars (int: characters of words kept), $now (int ms).
// Columns: id, words (string), ended (bool).
// Scope: the ids come from a scoped search; nothing else is read.
UNWIND $ids AS wanted
MATCH (r:Record {id: wanted})
RETURN r.id AS id,
       left(CASE WHEN r.title IS NULL OR r.title = '' THEN '' ELSE r.title + '\n' END + coalesce(r.text, ''), $chars)
         AS words,
       coalesce(r.valid_to_ms <= $now, false) AS ended
