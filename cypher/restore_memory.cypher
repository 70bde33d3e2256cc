// Restores one memory under its parent, keeping its id and times, with the restorer's implicit grant
// (as a creator gets one); it counts against the restorer's quota of memories (charged_to). A memory whose id exists is left as it is and returned, so the service can
// tell a retry (same name, place, cutoff) from a clash.
// Parameters: $memory (map: id, name, description, restricted, created_at, updated_at, created_by),
//   $parent_id, $grant_id (derived from the memory id and the restorer), $restorer (principal),
//   $now (int ms). Columns: id, name, description, restricted, parent_id, created (bool);
//   no row when the parent vanished. Scope: the service has checked create and write on the target.
MATCH (p:Memory {id: $parent_id})
OPTIONAL MATCH (existing:Memory {id: $memory.id})
CALL (p, existing) {
  WITH p, existing
  WHERE existing IS NULL
  CREATE (m:Memory {
    id: $memory.id, name: $memory.name, description: $memory.description,
    restricted: $memory.restricted, provider: p.provider, created_at: $memory.created_at,
    updated_at: $memory.updated_at, created_by: $memory.created_by, restored_at: $now,
    charged_to: $restorer
  })-[:CHILD_OF]->(p)
  CREATE (:Grant {id: $grant_id, principal: $restorer, privileges: ['read', 'write', 'create', 'delete'],
                  implicit: true, created_at: $now})-[:ON]->(m)
  RETURN m, true AS created
  UNION
  WITH existing
  WHERE existing IS NOT NULL
  RETURN existing AS m, false AS created
}
RETURN m.id AS id, m.name AS name, coalesce(m.description, '') AS description,
       coalesce(m.restricted, false) AS restricted,
       [(m)-[:CHILD_OF]->(q:Memory) | q.id][0] AS parent_id, created
