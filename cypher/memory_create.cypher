// Creates a memory under an existing parent (or as a root) with the creator's implicit grant of
// all four privileges, which flows down like any other grant.
// Parameters: $id, $name, $description, $parent_id (string or null), $restricted (bool),
//   $provider (string or null: inherited from the parent, else $default_provider), $default_provider,
//   $grant_id, $creator (principal string), $now (int ms).
// A memory whose id exists already is left as it is: the driver's retry of a commit whose answer was
// lost, or a retry under the same Idempotency-Key (the id derives from the key), finds the first.
// The memory counts against its creator's quota of memories (charged_to, given back when it goes).
// Columns: id, provider, created (bool: false for one that existed); no row when the parent vanished (the caller's check raced a delete).
// Scope: the service has checked `create` on the parent before calling.
OPTIONAL MATCH (p:Memory {id: $parent_id})
WITH p
WHERE $parent_id IS NULL OR p IS NOT NULL
OPTIONAL MATCH (existing:Memory {id: $id})
WITH p, existing
CALL (p, existing) {
WITH p, existing
WHERE existing IS NULL
CREATE (m:Memory {
  id: $id, name: $name, description: $description, restricted: $restricted,
  provider: coalesce($provider, p.provider, $default_provider),
  created_at: $now, updated_at: $now, created_by: $creator, charged_to: $creator
})
CREATE (:Grant {id: $grant_id, principal: $creator, privileges: ['read', 'write', 'create', 'delete'],
                implicit: true, created_at: $now})-[:ON]->(m)
FOREACH (_ IN CASE WHEN p IS NULL THEN [] ELSE [1] END | CREATE (m)-[:CHILD_OF]->(p))
RETURN m, true AS created
UNION
WITH existing
WHERE existing IS NOT NULL
RETURN existing AS m, false AS created
}
RETURN m.id AS id, m.provider AS provider, created
