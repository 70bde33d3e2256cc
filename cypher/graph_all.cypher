// Every current active record of the scope (the graph without a start), newest first.
// Parameters: $scope (memory ids), $types (list or null), $limit (int).
// Columns: id, memory_id, dist (0). Scope: only records whose memory_id is in $scope.
// `created_at IS NOT NULL` (every Record has it) lets the planner seek the composite index
// record_memory (memory_id, created_at) instead of scanning every Record in the database.
MATCH (n:Record)
WHERE n.memory_id IN $scope AND n.created_at IS NOT NULL AND n.status = 'active' AND ($types IS NULL OR n.type IN $types)
RETURN n.id AS id, n.memory_id AS memory_id, 0 AS dist
ORDER BY n.written_at DESC, id
LIMIT $limit
