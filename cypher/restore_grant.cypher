// Restores one explicit grant on a memory (asked for with grants=true): MERGEd on its slot as
// grant_put does, so a retry finds it; an existing grant for the principal keeps its privileges.
// Parameters: $memory_id, $grant (map: id, principal, privileges, created_at).
// Columns: id, privileges. Scope: the service has checked delete on the target.
MATCH (m:Memory {id: $memory_id})
MERGE (g:Grant {slot: m.id + ' ' + $grant.principal})
  ON CREATE SET g.id = $grant.id, g.principal = $grant.principal, g.implicit = false,
                g.created_at = $grant.created_at, g.privileges = $grant.privileges
MERGE (g)-[:ON]->(m)
RETURN g.id AS id, g.privileges AS privileges
