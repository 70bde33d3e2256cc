// The memories of a readable scope as the query sandbox holds them.
// Parameters: $scope (list of memory ids the access module judged readable).
// Columns: id, name, description, created_at, updated_at, parent_id (the parent's id, or null; the
//   service keeps it only when the parent is itself in the scope).
// Scope: only memories in $scope.
MATCH (m:Memory) WHERE m.id IN $scope
RETURN m.id AS id, m.name AS name, coalesce(m.description, '') AS description,
       m.created_at AS created_at, m.updated_at AS updated_at,
       [(m)-[:CHILD_OF]->(p:Memory) | p.id][0] AS parent_id
ORDER BY id
