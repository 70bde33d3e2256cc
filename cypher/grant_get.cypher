// Reads one grant on a memory. Parameters: $memory_id, $grant_id.
// Columns: id, implicit. No row when the grant is not on that memory.
MATCH (g:Grant {id: $grant_id})-[:ON]->(:Memory {id: $memory_id})
RETURN g.id AS id, coalesce(g.implicit, false) AS implicit
