// One page of a memory's active records with the words their embedding is made from, by id.
// Parameters: $memory_id, $after (record id or ''), $limit (int). Columns: id, words.
// Scope: the re-embed command has checked write on the memory.
MATCH (r:Record {memory_id: $memory_id})
WHERE r.status = 'active' AND r.id > $after
RETURN r.id AS id, r.text AS words
ORDER BY r.id
LIMIT $limit
