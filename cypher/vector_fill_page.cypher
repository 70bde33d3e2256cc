// One page of records, by id, with what of theirs holds the $source slot's vector but not the
// $target slot's: the words to embed with the target model.
// Parameters: $source, $target (slot properties), $after (record id or ''), $limit (int).
// Columns: id, versions (list of maps: version, words; empty when none is missing), record_missing
// (bool). Every record of the page comes back, so the caller's cursor moves past pages with nothing
// missing. Scope: the whole database (an operator command).
MATCH (r:Record)
WHERE r.id > $after
WITH r ORDER BY r.id LIMIT $limit
OPTIONAL MATCH (v:RecordVersion)-[:VERSION_OF]->(r)
WHERE v[$source] IS NOT NULL AND v[$target] IS NULL
WITH r, collect(v {.version, words: v.text}) AS versions
RETURN r.id AS id, versions, r[$source] IS NOT NULL AND r[$target] IS NULL AS record_missing
ORDER BY id
