// History recall (as_of or include=all), ranked inside Neo4j over a bounded window: the $window
// newest versions of the scope's records that were current at the instant (forgotten ones only
// when $include_all) are scored here, and only each signal's top $k come back, so no embedding or
// text of the window ever reaches the service. Superseded and forgotten versions never sit in the
// indexes, hence a scan. `cut` says versions past the window were left out.
// Meaning: cosine against $vector (null: none), on versions whose embedding has its length; the
// score is Neo4j's, rescaled to [0, 1]. Words: the share of $words (lower case; [] for none) that
// the version's text contains, case-insensitively; only versions containing one.
// Parameters: $scope, $as_of (int ms), $include_all (bool), $dnf, $vector (list<float> or null),
//   $words (list<string>), $k (int), $window (int), $slot (the vector property recall reads).
// Columns (one row): cut (bool), meaning, words, newest (lists of at most $k maps: id, memory_id,
//   score; best first, ties newest first; newest: by written_at, score null).
// Scope: only memories in $scope. `created_at IS NOT NULL` (every Record has it) lets the planner
// seek the composite index record_memory (memory_id, created_at).
CALL () {
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
  WITH r ORDER BY r.written_at DESC, r.record_id LIMIT $window + 1
  RETURN collect(r) AS newest
}
WITH newest[..$window] AS window, size(newest) > $window AS cut
CALL (window) {
  UNWIND window AS r
  WITH r, r[$slot] AS embedding
  WHERE $vector IS NOT NULL AND size(embedding) = size($vector)
  WITH r, vector.similarity.cosine(embedding, $vector) AS score
  WHERE score IS NOT NULL
  ORDER BY score DESC, r.written_at DESC, r.record_id
  LIMIT $k
  RETURN collect({id: r.record_id, memory_id: r.memory_id, score: score}) AS meaning
}
CALL (window) {
  UNWIND window AS r
  WITH r, toLower(coalesce(r.text, '')) AS haystack
  WITH r, size([word IN $words WHERE haystack CONTAINS word]) AS matched
  WHERE matched > 0
  ORDER BY matched DESC, r.written_at DESC, r.record_id
  LIMIT $k
  RETURN collect({id: r.record_id, memory_id: r.memory_id, score: toFloat(matched) / size($words)}) AS words
}
RETURN cut, meaning, words,
       [r IN window[..$k] | {id: r.record_id, memory_id: r.memory_id, score: null}] AS newest
