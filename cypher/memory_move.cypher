// Moves a memory (and so its whole subtree) under a new parent, or makes it a root.
// A new parent that is the memory itself or lies below it would make a cycle: outcome 'cycle', no move.
// Moves running at once cannot make one either (A under B and B under A): first the memory and every
// node from the new parent up, as read now, are write-locked (a property SET to itself takes the lock);
// then that chain is read again. When every node of it was locked, no parent edge on it can change
// before this commits (moving a node locks it), so the check below holds at commit; when a move that
// committed meanwhile changed the chain, the outcome is 'stale' and the store runs this again.
// A move carries the subtree's usage along (the sum of its memories' held_records and held_bytes):
// off the old root's tree_* and onto the new root's, without a quota check, so a move may take a tree
// past its quota; the next write into it is then refused.
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
  MATCH (m)-[:CHILD_OF*0..]->(old_root:Memory)
  WHERE NOT (old_root)-[:CHILD_OF]->()
  MATCH (m)<-[:CHILD_OF*0..]-(d:Memory)
  WITH m, np, old_root, sum(coalesce(d.held_records, 0)) AS records, sum(coalesce(d.held_bytes, 0)) AS bytes
  SET old_root.tree_records = coalesce(old_root.tree_records, 0) - records,
      old_root.tree_bytes = coalesce(old_root.tree_bytes, 0) - bytes
  WITH m, np, records, bytes
  OPTIONAL MATCH (m)-[old:CHILD_OF]->()
  DELETE old
  WITH m, np, records, bytes
  FOREACH (_ IN CASE WHEN np IS NULL THEN [] ELSE [1] END | CREATE (m)-[:CHILD_OF]->(np))
  SET m.updated_at = $now
  WITH m, records, bytes
  MATCH (m)-[:CHILD_OF*0..]->(new_root:Memory)
  WHERE NOT (new_root)-[:CHILD_OF]->()
  SET new_root.tree_records = coalesce(new_root.tree_records, 0) + records,
      new_root.tree_bytes = coalesce(new_root.tree_bytes, 0) + bytes
  WITH m, new_root
  FOREACH (_ IN CASE WHEN new_root = m THEN [] ELSE [1] END | REMOVE m.tree_records, m.tree_bytes)
}
RETURN m.id AS id, outcome
