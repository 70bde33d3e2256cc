// Removes a grant that sits on this memory (not one inherited from an ancestor).
// Parameters: $memory_id, $grant_id. Columns: deleted (int), implicit (bool or null).
// Scope: the service has checked delete; the creator's implicit grant is refused before this runs.
MATCH (g:Grant {id: $grant_id})-[:ON]->(:Memory {id: $memory_id})
WITH g, coalesce(g.implicit, false) AS implicit
DETACH DELETE g
RETURN count(*) AS deleted, implicit
