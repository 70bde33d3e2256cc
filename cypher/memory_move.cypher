// Moves a memory (and so its whole subtree) under a new parent, or makes it a root.
// A new parent that is the memory itself or lies below it would make a cycle: outcome 'cycle', no move.
// Moves running at once cannot make one either (A under B and B under A): first the memory and every
// node from the new parent up, as read now, are write-locked (a property SET to itself takes the lock);
// then that chain is read again. When every node of it was locked, no parent edge on it can change
// before this commits (moving a node locks it), so the check below holds at commit; when a move that
// committed meanwhile changed the chain, the outcome is 'stale' and the store runs this again.
// Parameters: $id, $parent_id (string or null), $now (int ms).
// Columns: id, outcome ('moved', 'cycle' or 'stale'). No row when the memory or the new parent is unknown.
// Scope: the service has checked delete on the memory and create on the new parent.
MATCH (m:Memory {id: $id})
OPTIONAL MATCH (np:Memory {id: $parent_id})
WITH m, np
WHERE $parent_id IS NULL OR np IS NOT NULL
OPTIONAL MATCH (np)-[:CHILD_OF*0..]->(seen:Memory)
WITH m, np, collect(seen) AS locked
FOREACH (n IN [m] + locked | SET n.id = n.id)
WITH m, np, locked
OPTIONAL MATCH (np)-[:CHILD_OF*0..]->(above:Memory)
WITH m, np, locked, collect(above) AS chain
WITH m, np,
     CASE
       WHEN any(a IN chain WHERE NOT a IN locked) THEN 'stale'
       WHEN m IN chain THEN 'cycle'
       ELSE 'moved'
     END AS outcome
CALL (m, np, outcome) {
  WITH m, np, outcome
  WHERE outcome = 'moved'
  OPTIONAL MATCH (m)-[old:CHILD_OF]->()
  DELETE old
  WITH m, np
  FOREACH (_ IN CASE WHEN np IS NULL THEN [] ELSE [1] END | CREATE (m)-[:CHILD_OF]->(np))
  SET m.updated_at = $now
}
RETURN m.id AS id, outcome
