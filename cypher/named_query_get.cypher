// One named query of a memory, by name; no row when there is none.
// Parameters: $memory_id, $name. Columns: query (map of the query's fields).
// Scope: the service has checked read on the memory.
MATCH (q:NamedQuery {name: $name})-[:IN]->(:Memory {id: $memory_id})
RETURN q {.memory_id, .name, .description, .body, .language, .requires, .params_json, .created_at,
          .updated_at, .written_by} AS query
