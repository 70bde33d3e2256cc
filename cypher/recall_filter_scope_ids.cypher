// Recall's vector cache with filters: every record of the scope that recall_vector_exact
// would score and that passes the filters, by id; the cache ranks them. The same predicate as that
// scan, without reading an embedding or computing a cosine (most of the scan's cost).
// Parameters: $scope (memory ids), $dnf (filters, as in recall_vector_exact). Columns: id.
// No `r.embedding IS NOT NULL`: reading it reads the whole vector, and only the ids the cache holds
// (embedded records at the records_version it checked) are ranked.
// Scope: only records whose memory_id is in $scope; `created_at IS NOT NULL` seeks record_memory.
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
RETURN r.id AS id
