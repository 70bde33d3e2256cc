// Erases records for good: every version (content, words, attributes, embedding) and the Record
// node with its index entries and references. Stored answers to idempotent writes that carry one
// of these ids hold the content: each is replaced by a 404 naming the erase, and the key is kept,
// so a replay neither returns the content nor writes it again. In the same transaction it leaves
// two notes, so a crash right after loses nothing of what is left to do: a FileSweep holding the
// contents of erased versions that named files (their bytes go once no version names them), and an
// Erasure naming the records asked for (a retry of the same erase finds them done, not unknown).
// Parameters: $ids (record ids already judged by record_erase_plan), $named (the ids the caller
//   named), $memory_id, $erasure_id, $sweep_id, $now (int ms). Columns: erased (int), released (list
//   of maps: payer, memory_id, records, bytes: what the versions were charged, for usage_release).
// Bumps each touched memory's records_version (recall's vector cache), after the records' locks.
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
CREATE (:Erasure {id: $erasure_id, memory_id: $memory_id, record_ids: $named, at: $now})
WITH released
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
  SET m.records_version = coalesce(m.records_version, 0) + 1
}
CALL (erased) {
  MATCH (k:IdempotencyKey)
  WHERE any(id IN $ids WHERE k.body CONTAINS id)
  SET k.status = 404,
      k.body = '{"error": {"type": "invalid_request_error", "code": "memory_record_not_found", '
             + '"message": "The record this request wrote was erased.", "param": null, "detail": null}}'
}
RETURN erased, released
