// Reads one grant on a memory. Parameters: $memory_id, $grant_id.
// Columns: id, memory_id, principal, privileges, implicit. No row when the grant is not on that memory.
MATCH (g:Grant {id: $grant_id})-[:ON]->(m:Memory {id: $memory_id})
RETURN g.id AS id, m.id AS memory_id, g.principal AS principal, g.privileges AS privileges,
       coalesce(g.implicit, false) AS implicit
