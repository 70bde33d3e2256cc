// Fields alone, over a scope holding most of the database: the current active records of the scope
// that pass the filters, newest first, found by walking the written_at index from the newest down and
// stopping at $k (ties in written_at are sorted by id, only among themselves). Chosen instead of
// recall_filter when the scope holds at least half of all records, so at least every other record
// walked is in scope; a filter that matches little walks further, never more than every record.
// Parameters: $scope, $dnf, $k (int). Columns: id, memory_id, score (null).
// Scope: only records whose memory_id is in $scope.
MATCH (r:Record)
USING INDEX r:Record(written_at)
WHERE r.written_at IS NOT NULL AND r.memory_id IN $scope AND r.status = 'active'
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
