// Meaning, through the vector index: a global top $fetch, then only what is in scope and passes
// the filters. The service raises $fetch (over-fetch) and falls back to the exact scan when the
// index does not return $k results in scope. The index ranks by quantized vectors (5.26 indexes
// quantize by default), so the candidates it returns are ranked again by exact cosine.
// Parameters: $scope, $vector, $dnf, $fetch (int), $k (int), $slot (the vector property recall reads)
//   and $index (that slot's vector index).
// Columns: id, memory_id, score (exact cosine, rescaled to [0, 1] as the index reports it),
//   seen (int: how many the index returned before filtering).
// Scope: only records whose memory_id is in $scope leave this statement.
CALL db.index.vector.queryNodes($index, $fetch, $vector) YIELD node
WITH collect(node) AS hits
UNWIND hits AS r
WITH r, size(hits) AS seen
WHERE r.memory_id IN $scope
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
WITH r, seen, vector.similarity.cosine(r[$slot], $vector) AS score
RETURN r.id AS id, r.memory_id AS memory_id, score, seen
ORDER BY score DESC, id
LIMIT $k
