// How many searchable (current, active, embedded) records the scope holds, and how many the
// whole vector index holds, to choose exact similarity or an index search per request.
// Parameters: $scope (list of memory ids the access module judged readable).
// Columns: in_scope (int), total (int). Scope: counts only the memories in $scope.
CALL () {
  MATCH (r:Record) WHERE r.memory_id IN $scope AND r.embedding IS NOT NULL
  RETURN count(r) AS in_scope
}
CALL () {
  MATCH (r:Record)
  RETURN count(r) AS total
}
RETURN in_scope, total
