// Erases one batch of an erase's records for good: every version (content, words, attributes,
// embedding) and the Record node with its index entries and references. Stored answers to idempotent
// writes that carry one of these ids hold the content: each is replaced by a 404 naming the erase,
// and the key is kept, so a replay neither returns the content nor writes it again. In the same
// transaction the batch is struck off its Erasure's pending list, and a FileSweep holds the contents
// of erased versions that named files (their bytes go once no version names them), so a crash right
// after loses nothing of what is left to do. A surviving record whose current version names an erased
// one keeps waiting for it (AWAITS an Awaited node), as a reference written before its target does.
// Parameters: $ids (a batch of record ids the plan doomed), $erasure_id, $sweep_id, $now (int ms).
// Columns: erased (int), released (list of maps: payer, memory_id, records, bytes: what the versions
//   were charged, for usage_release).
// Bumps each touched memory's records_version (recall's vector cache), after the records' locks, and
// the copy_epoch of every memory that held an erased record or a reference to one: a query sandbox's
// copy of it is never brought up to date past an erase, it is loaded anew.
OPTIONAL MATCH (fv:RecordVersion)-[:VERSION_OF]->(fr:Record)
WHERE fr.id IN $ids AND fv.content_json CONTAINS '"file"'
WITH collect(fv.content_json) AS contents
CALL () {
  MATCH (v:RecordVersion)-[:VERSION_OF]->(r:Record)
  WHERE r.id IN $ids
  WITH v.charged_to AS payer, r.memory_id AS memory_id, sum(coalesce(v.charged_records, 0)) AS records,
       sum(coalesce(v.charged_bytes, 0)) AS bytes
  RETURN collect({payer: payer, memory_id: memory_id, records: records, bytes: bytes}) AS released
}
FOREACH (_ IN CASE WHEN size(contents) > 0 THEN [1] ELSE [] END |
  CREATE (:FileSweep {id: $sweep_id, contents: contents, created_at: $now}))
WITH released
CALL () {
  MATCH (e:Erasure {id: $erasure_id})
  SET e.pending = [id IN coalesce(e.pending, []) WHERE NOT id IN $ids]
}
CALL () {
  MATCH (src:Record)-[e:REFERENCES]->(r:Record)
  WHERE r.id IN $ids AND NOT src.id IN $ids
  MERGE (w:Awaited {id: r.id})
  CREATE (src)-[:AWAITS {rel: e.rel, position: e.position}]->(w)
  WITH DISTINCT src.memory_id AS memory_id
  MATCH (m:Memory {id: memory_id})
  SET m.copy_epoch = coalesce(m.copy_epoch, 0) + 1
}
CALL () {
  MATCH (r:Record)-[:AWAITS]->(w:Awaited)
  WHERE r.id IN $ids
  WITH DISTINCT w
  WHERE NOT EXISTS { MATCH (other:Record)-[:AWAITS]->(w) WHERE NOT other.id IN $ids }
  DETACH DELETE w
}
MATCH (r:Record) WHERE r.id IN $ids
OPTIONAL MATCH (v:RecordVersion)-[:VERSION_OF]->(r)
DETACH DELETE v
WITH DISTINCT r, released
WITH r, released, r.memory_id AS memory_id
DETACH DELETE r
WITH head(collect(released)) AS released, count(*) AS erased, collect(DISTINCT memory_id) AS touched
CALL (touched) {
  UNWIND touched AS memory_id
  MATCH (m:Memory {id: memory_id})
  SET m.records_version = coalesce(m.records_version, 0) + 1,
      m.copy_epoch = coalesce(m.copy_epoch, 0) + 1
}
CALL (erased) {
  MATCH (k:IdempotencyKey)
  WHERE any(id IN $ids WHERE k.body CONTAINS id)
  SET k.status = 404,
      k.body = '{"error": {"type": "invalid_request_error", "code": "memory_record_not_found", '
             + '"message": "The record this request wrote was erased.", "param": null, "detail": null}}'
}
RETURN erased, released
