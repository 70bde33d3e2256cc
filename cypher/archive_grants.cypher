// The grants sitting on one memory (not those inherited), for an export by a caller holding delete.
// Parameters: $memory_id. Columns: id, principal, privileges, implicit, created_at; oldest first.
// Scope: the export service has checked delete on the memory.
MATCH (g:Grant)-[:ON]->(:Memory {id: $memory_id})
RETURN g.id AS id, g.principal AS principal, g.privileges AS privileges,
       coalesce(g.implicit, false) AS implicit, g.created_at AS created_at
ORDER BY g.created_at, g.id
