// Records within $hops references of a start record, either direction, never stepping outside
// the scope; the start must itself be in scope and active.
// Parameters: $around (record id), $hops (int 0..3), $scope (memory ids), $types (list or null),
//   $limit (int). Columns: id, memory_id, dist. Scope: every node on every path is in $scope.
MATCH (start:Record {id: $around})
WHERE start.memory_id IN $scope AND start.status = 'active'
MATCH p = (start)-[:REFERENCES*0..3]-(n:Record)
WHERE length(p) <= $hops AND all(x IN nodes(p) WHERE x.memory_id IN $scope AND x.status = 'active')
  AND (n = start OR $types IS NULL OR n.type IN $types)
WITH n, min(length(p)) AS dist
RETURN n.id AS id, n.memory_id AS memory_id, dist
ORDER BY dist, id
LIMIT $limit
