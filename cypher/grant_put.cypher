// Gives a principal privileges on a memory; a second grant for the same principal replaces the
// first's privileges and keeps its id (the creator's implicit grant has no slot: it is kept apart and
// never replaced). The grant is MERGEd on its slot, "<memory id> <principal>", unique by schema_024,
// so requests racing for one principal meet on the constraint's index: one creates, the others find
// it; whichever runs last sets the privileges.
// Parameters: $memory_id, $principal, $privileges (list), $grant_id (used when new), $now (int ms).
// Columns: id, memory_id, principal, privileges. No row when the memory is unknown.
// Scope: the service has checked delete.
MATCH (m:Memory {id: $memory_id})
MERGE (g:Grant {slot: m.id + ' ' + $principal})
  ON CREATE SET g.id = $grant_id, g.principal = $principal, g.implicit = false, g.created_at = $now
SET g.privileges = $privileges
MERGE (g)-[:ON]->(m)
RETURN g.id AS id, m.id AS memory_id, g.principal AS principal, g.privileges AS privileges
