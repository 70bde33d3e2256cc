// Gives a principal privileges on a memory; a second grant for the same principal replaces the
// first (the creator's implicit grant is kept apart and never replaced).
// Parameters: $memory_id, $principal, $privileges (list), $grant_id (used when new), $now (int ms).
// Columns: id, memory_id, principal, privileges. Scope: the service has checked delete.
MATCH (m:Memory {id: $memory_id})
OPTIONAL MATCH (old:Grant {principal: $principal})-[:ON]->(m) WHERE NOT coalesce(old.implicit, false)
WITH m, old
CALL (m, old) {
  WITH m, old WHERE old IS NULL
  CREATE (g:Grant {id: $grant_id, principal: $principal, privileges: $privileges, implicit: false,
                   created_at: $now})-[:ON]->(m)
  RETURN g
  UNION
  WITH old WHERE old IS NOT NULL
  SET old.privileges = $privileges
  RETURN old AS g
}
RETURN g.id AS id, m.id AS memory_id, g.principal AS principal, g.privileges AS privileges
