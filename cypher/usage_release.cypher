// Gives back, in a delete's own transaction, what the delete removed: each payer's records, bytes
// and memories, each memory's held records and bytes, and its root's tree totals. Run after the
// delete, so a memory it removed is skipped (its tree's root, if it survives, is given back by the
// batches of memory_delete_batch that ran while the memory stood).
// Parameters: $released (list of maps: payer (or null), memory_id, records, bytes), $memories (list of
//   the removed memories' payers; nulls skipped). Columns: payers (int, how many were given back).
WITH [r IN $released WHERE r.payer IS NOT NULL | {payer: r.payer, records: r.records, bytes: r.bytes, memories: 0}]
     + [p IN $memories WHERE p IS NOT NULL | {payer: p, records: 0, bytes: 0, memories: 1}] AS owed
CALL (owed) {
  UNWIND owed AS o
  WITH o.payer AS payer, sum(o.records) AS records, sum(o.bytes) AS bytes, sum(o.memories) AS memories
  ORDER BY payer
  MATCH (u:Usage {principal: payer})
  SET u.records = coalesce(u.records, 0) - records, u.content_bytes = coalesce(u.content_bytes, 0) - bytes,
      u.memories = coalesce(u.memories, 0) - memories
}
CALL () {
  UNWIND $released AS r
  WITH r.memory_id AS memory_id, sum(r.records) AS records, sum(r.bytes) AS bytes
  MATCH (m:Memory {id: memory_id})
  SET m.held_records = coalesce(m.held_records, 0) - records, m.held_bytes = coalesce(m.held_bytes, 0) - bytes
  WITH m, records, bytes
  MATCH (m)-[:CHILD_OF*0..]->(root:Memory)
  WHERE NOT (root)-[:CHILD_OF]->()
  WITH root, sum(records) AS records, sum(bytes) AS bytes
  ORDER BY root.id
  SET root.tree_records = coalesce(root.tree_records, 0) - records,
      root.tree_bytes = coalesce(root.tree_bytes, 0) - bytes
}
RETURN size(owed) AS payers
