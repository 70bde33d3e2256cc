// The named queries defined on one memory, by name.
// Parameters: $memory_id. Columns: query (map of the query's fields).
// Scope: the service has checked read on the memory.
MATCH (q:NamedQuery)-[:IN]->(:Memory {id: $memory_id})
RETURN q {.memory_id, .name, .description, .body, .language, .requires, .params_json, .created_at,
          .updated_at, .written_by} AS query
ORDER BY q.name
