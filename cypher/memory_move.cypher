// Moves a memory (and so its whole subtree) under a new parent, or makes it a root.
// A new parent that is the memory itself or lies below it would make a cycle: no row then.
// Parameters: $id, $parent_id (string or null), $now (int ms).
// Columns: id, moved (bool). No row when the memory is unknown.
// Scope: the service has checked delete on the memory and create on the new parent.
MATCH (m:Memory {id: $id})
OPTIONAL MATCH (np:Memory {id: $parent_id})
WITH m, np
WHERE $parent_id IS NULL OR (np IS NOT NULL AND NOT (np)-[:CHILD_OF*0..]->(m))
OPTIONAL MATCH (m)-[old:CHILD_OF]->()
DELETE old
WITH m, np
FOREACH (_ IN CASE WHEN np IS NULL THEN [] ELSE [1] END | CREATE (m)-[:CHILD_OF]->(np))
SET m.updated_at = $now
RETURN m.id AS id, true AS moved
