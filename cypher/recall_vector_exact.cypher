// Meaning, exactly: cosine similarity against every current active record of the scope that
// passes the filters. Used when the scope is small enough that a scan beats an index search
// (and never starves: every scoped record is considered).
// Parameters: $scope (memory ids), $vector (list<float>), $slot (the vector property recall reads), $dnf (filters as a list of conjunctions
//   of {key, op, value}; [[]] for none), $k (int).
// Columns: id, memory_id, score. Scope: only records whose memory_id is in $scope.
// `created_at IS NOT NULL` (every Record has it) lets the planner seek the composite index
// record_memory (memory_id, created_at) instead of scanning every Record in the database.
MATCH (r:Record)
WHERE r.memory_id IN $scope AND r.created_at IS NOT NULL
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
// The slot is read once into a variable: reading r[$slot] twice costs ~1.8x the scan (3,700 records).
WITH r, r[$slot] AS embedding
WHERE embedding IS NOT NULL
WITH r, vector.similarity.cosine(embedding, $vector) AS score
ORDER BY score DESC, r.id
LIMIT $k
RETURN r.id AS id, r.memory_id AS memory_id, score
