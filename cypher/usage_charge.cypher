// Charges what a write just made, in the write's own transaction, to the counters the quotas read:
// the payer's Usage node, each memory written (held_records, held_bytes: what a move carries along)
// and the root of its tree (tree_records, tree_bytes). Each counter node is locked (a property SET)
// before it is read, so the writes of one payer, or into one tree, are counted one after the other on
// every instance, and writes sent in parallel cannot pass a quota together. The counters are raised
// whatever they show: the store judges the columns and, past a quota, rolls the whole transaction
// back, the write with it, so a refused write leaves nothing.
// Parameters: $payer (principal, or null: a consolidation run's write counts against its root only),
//   $memories (int: memories the payer created), $held (list of maps: memory_id, records, bytes),
//   $now (int ms). Columns: payer (map: records, content_bytes, memories before this write; null
//   without a payer), roots (list of maps: id, records, content_bytes before, adding_records,
//   adding_bytes), adding (map: records, content_bytes, memories). Scope: the service has checked the write.
WITH reduce(n = 0, h IN $held | n + h.records) AS records, reduce(n = 0, h IN $held | n + h.bytes) AS bytes
CALL (records, bytes) {
  UNWIND CASE WHEN $payer IS NULL THEN [] ELSE [$payer] END AS principal
  MERGE (u:Usage {principal: principal})
  SET u.locked_at = $now
  WITH u, coalesce(u.records, 0) AS r, coalesce(u.content_bytes, 0) AS b, coalesce(u.memories, 0) AS n
  SET u.records = r + records, u.content_bytes = b + bytes, u.memories = n + $memories
  RETURN collect({records: r, content_bytes: b, memories: n}) AS before
}
CALL () {
  UNWIND $held AS h
  MATCH (m:Memory {id: h.memory_id})
  SET m.held_records = coalesce(m.held_records, 0) + h.records,
      m.held_bytes = coalesce(m.held_bytes, 0) + h.bytes
  WITH m, h
  MATCH (m)-[:CHILD_OF*0..]->(root:Memory)
  WHERE NOT (root)-[:CHILD_OF]->()
  WITH root, sum(h.records) AS records, sum(h.bytes) AS bytes
  ORDER BY root.id
  SET root.tree_locked_at = $now
  WITH root, records, bytes, coalesce(root.tree_records, 0) AS r, coalesce(root.tree_bytes, 0) AS b
  SET root.tree_records = r + records, root.tree_bytes = b + bytes
  RETURN collect({id: root.id, records: r, content_bytes: b, adding_records: records, adding_bytes: bytes})
         AS roots
}
RETURN before[0] AS payer, roots, {records: records, content_bytes: bytes, memories: $memories} AS adding
