// Recall's vector cache with filters: which of these ids, ranked outside Cypher over the cached
// embeddings, pass the filters. The same predicate as recall_vector_exact, so the answer is the
// same as that scan's; the ids are sought by the record id index, a window of the ranking at a time.
// Parameters: $ids (record ids), $scope (memory ids), $dnf (filters, as in recall_vector_exact).
// Columns: id. Scope: only records whose memory_id is in $scope.
MATCH (r:Record)
WHERE r.id IN $ids AND r.memory_id IN $scope AND r.created_at IS NOT NULL AND r.embedding IS NOT NULL
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
RETURN r.id AS id
