// Schema: starts the quota counters of a database written before quotas, once (a UsageFill node marks
// it done, so later start-ups skip it at the cost of one lookup). Each version gets what a write now
// stamps on it: charged_to (its writer's principal, or the member the provider wrote it for; none for
// a consolidation run), charged_bytes (its content and attributes as stored; characters here, where a
// write counts UTF-8 bytes) and charged_records (1 on a record's first version). Their sums go to each
// payer's Usage node, each memory's held_* and each root's tree_*; each memory's creator is charged it.
// One transaction: a version written meanwhile by a process without quotas stays uncounted.
// Parameters: none. Columns: versions (int, how many were counted; no row when the fill ran before).
OPTIONAL MATCH (done:UsageFill {id: 'usage'})
WITH done
WHERE done IS NULL
CREATE (:UsageFill {id: 'usage', at: timestamp()})
WITH 1 AS once
CALL () {
  MATCH (v:RecordVersion)
  WHERE v.charged_bytes IS NULL
  SET v.charged_bytes = size(coalesce(v.content_json, '')) + size(coalesce(v.attributes_json, '')),
      v.charged_records = CASE WHEN v.supersedes IS NULL THEN 1 ELSE 0 END,
      v.charged_to = CASE WHEN v.writer_kind = 'member' THEN 'member:' + v.writer_id ELSE v.writer_on_behalf_of END
  WITH v.charged_to AS payer, v.memory_id AS memory_id, sum(v.charged_records) AS records,
       sum(v.charged_bytes) AS bytes, count(v) AS versions
  RETURN collect({payer: payer, memory_id: memory_id, records: records, bytes: bytes}) AS counted,
         sum(versions) AS versions
}
CALL (counted) {
  UNWIND counted AS c
  WITH c.payer AS payer, sum(c.records) AS records, sum(c.bytes) AS bytes
  WHERE payer IS NOT NULL
  MERGE (u:Usage {principal: payer})
  SET u.records = coalesce(u.records, 0) + records, u.content_bytes = coalesce(u.content_bytes, 0) + bytes
}
CALL (counted) {
  UNWIND counted AS c
  WITH c.memory_id AS memory_id, sum(c.records) AS records, sum(c.bytes) AS bytes
  MATCH (m:Memory {id: memory_id})
  SET m.held_records = coalesce(m.held_records, 0) + records, m.held_bytes = coalesce(m.held_bytes, 0) + bytes
  WITH m, records, bytes
  MATCH (m)-[:CHILD_OF*0..]->(root:Memory)
  WHERE NOT (root)-[:CHILD_OF]->()
  WITH root, sum(records) AS records, sum(bytes) AS bytes
  SET root.tree_records = coalesce(root.tree_records, 0) + records,
      root.tree_bytes = coalesce(root.tree_bytes, 0) + bytes
}
CALL () {
  MATCH (m:Memory)
  WHERE m.charged_to IS NULL AND m.created_by IS NOT NULL
  SET m.charged_to = m.created_by
  WITH m.charged_to AS payer, count(m) AS memories
  MERGE (u:Usage {principal: payer})
  SET u.memories = coalesce(u.memories, 0) + memories
}
RETURN versions
