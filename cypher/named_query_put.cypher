// Defines or replaces a named query of a memory. The first SET takes the memory's write lock, so
// two definitions of one name cannot both create a node.
// Parameters: $memory_id, $name, $description, $body, $language, $requires ('read'), $params_json
//   (the JSON Schema as JSON text), $now (int ms), $written_by (principal string).
// Columns: the query's fields (memory_id, name, description, body, language, requires, params_json,
//   created_at, updated_at, written_by); no row when the memory vanished.
// Scope: the service has checked write on the memory.
MATCH (m:Memory {id: $memory_id})
SET m.locked_at = $now
WITH m
OPTIONAL MATCH (old:NamedQuery {name: $name})-[:IN]->(m)
CALL (m, old) {
  WITH m, old WHERE old IS NULL
  CREATE (q:NamedQuery {memory_id: $memory_id, name: $name, created_at: $now})-[:IN]->(m)
  RETURN q
  UNION
  WITH old WHERE old IS NOT NULL
  RETURN old AS q
}
SET q.description = $description, q.body = $body, q.language = $language, q.requires = $requires,
    q.params_json = $params_json, q.updated_at = $now, q.written_by = $written_by
REMOVE m.locked_at
RETURN q {.memory_id, .name, .description, .body, .language, .requires, .params_json, .created_at,
          .updated_at, .written_by} AS query
