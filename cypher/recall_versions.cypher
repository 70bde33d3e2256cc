// History reads for recall (as_of or include=all): every version of the scope's records that was
// current at the instant, forgotten ones only when $include_all, with its words and embedding,
// for exact scoring in the service. Superseded and forgotten versions never sit in the indexes.
// Parameters: $scope, $as_of (int ms), $include_all (bool), $dnf, $cap (int).
// Columns: id, memory_id, text, title, embedding, written_at. Scope: only memories in $scope.
// `created_at IS NOT NULL` (every Record has it) lets the planner seek the composite index
// record_memory (memory_id, created_at) instead of scanning every Record in the database.
MATCH (rec:Record)
WHERE rec.memory_id IN $scope AND rec.created_at IS NOT NULL
MATCH (r:RecordVersion)-[:VERSION_OF]->(rec)
WHERE r.written_at <= $as_of AND (r.superseded_at IS NULL OR r.superseded_at > $as_of)
  AND ($include_all OR r.forgotten_at IS NULL OR r.forgotten_at > $as_of)
  AND any(conj IN $dnf WHERE all(p IN conj WHERE
    CASE p.op
      WHEN 'eq' THEN r[p.key] = p.value
      WHEN 'ne' THEN r[p.key] IS NULL OR r[p.key] <> p.value
      WHEN 'lt' THEN r[p.key] < p.value
      WHEN 'lte' THEN r[p.key] <= p.value
      WHEN 'gt' THEN r[p.key] > p.value
      WHEN 'gte' THEN r[p.key] >= p.value
      WHEN 'in' THEN r[p.key] IN p.value
      WHEN 'exists' THEN (r[p.key] IS NOT NULL) = p.value
      ELSE false
    END))
RETURN r.record_id AS id, r.memory_id AS memory_id, r.text AS text, r.title AS title,
       r.embedding AS embedding, r.written_at AS written_at
ORDER BY r.written_at DESC
LIMIT $cap
