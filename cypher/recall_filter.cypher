// Fields alone: the current active records of the scope that pass the filters, newest first.
// Parameters: $scope, $dnf, $k (int). Columns: id, memory_id, score (null).
// Scope: only records whose memory_id is in $scope.
// `created_at IS NOT NULL` (every Record has it) lets the planner seek the composite index
// record_memory (memory_id, created_at) instead of scanning every Record in the database.
MATCH (r:Record)
WHERE r.memory_id IN $scope AND r.created_at IS NOT NULL AND r.status = 'active'
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
RETURN r.id AS id, r.memory_id AS memory_id, null AS score
ORDER BY r.written_at DESC, r.id
LIMIT $k
