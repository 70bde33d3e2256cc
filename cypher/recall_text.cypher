// Words, through the full-text index over title, text parts and file parts' words, counted inside the
// caller's scope only: recall scores them itself (BM25 over the scope, services/recall/words.py), so
// what other members hold never changes a ranking. One Lucene query per word (escaped user words,
// with the scope as a clause on search_memory when the scope is small enough); the WHERE holds the
// scope either way. Each word brings at most $fetch records; `seen` says when a word had more.
// Parameters: $lucenes (list of strings, one per word), $scope, $dnf, $fetch (int).
// Columns: holding (list of int: per word, the records in scope holding it), seen (list of int: per
//   word, what the index returned before the scope was applied), found (list of maps: id, memory_id,
//   length (characters of title and words), words (indexes into $lucenes); the records holding any
//   word that pass the filters, by id).
// Scope: only records whose memory_id is in $scope.
UNWIND range(0, size($lucenes) - 1) AS word
CALL (word) {
  CALL db.index.fulltext.queryNodes('record_words', $lucenes[word], {limit: $fetch}) YIELD node
  WITH collect(node) AS returned
  RETURN size(returned) AS seen, [r IN returned WHERE r.memory_id IN $scope] AS holders
}
WITH collect({word: word, seen: seen, holders: holders}) AS words
CALL (words) {
  UNWIND words AS w
  UNWIND w.holders AS r
  WITH r, collect(w.word) AS held
  WHERE any(conj IN $dnf WHERE all(p IN conj WHERE
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
  WITH r, held ORDER BY r.id
  RETURN collect({
    id: r.id,
    memory_id: r.memory_id,
    length: size(coalesce(r.search_title, '')) + size(coalesce(r.search_text, '')),
    words: held
  }) AS found
}
RETURN [w IN words | size(w.holders)] AS holding, [w IN words | w.seen] AS seen, found
