// Words scored by Lucene (statistics over the whole index), for a scope too large to count its own:
// through the full-text index over title, text parts and file parts' words. The Lucene
// query is built from escaped user words and, when the scope is small enough, carries the scope
// as a clause on search_memory; the WHERE below holds the scope either way. Filters apply after
// the index's top $fetch, so the service raises $fetch while `seen` shows the index had more.
// One row always, even when nothing passes: `seen` must be known then too, or a search whose
// words match nothing would raise $fetch to its cap, a round trip each time.
// Parameters: $lucene (string), $scope, $dnf, $fetch (int), $k (int).
// Columns: seen (int: how many the index returned before filtering), found (list of at most $k
//   maps: id, memory_id, score; best first, ties by id).
// Scope: only records whose memory_id is in $scope.
CALL db.index.fulltext.queryNodes('record_words', $lucene, {limit: $fetch}) YIELD node AS r, score
WITH collect({r: r, score: score}) AS hits
CALL (hits) {
  UNWIND hits AS hit
  WITH hit.r AS r, hit.score AS score
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
  WITH r, score
  ORDER BY score DESC, r.id
  LIMIT $k
  RETURN collect({id: r.id, memory_id: r.memory_id, score: score}) AS found
}
RETURN size(hits) AS seen, found
