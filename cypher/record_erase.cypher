// Erases records for good: every version (content, words, attributes, embedding) and the Record
// node with its index entries and references. Stored answers to idempotent writes that carry one
// of these ids hold the content: each is replaced by a 404 naming the erase, and the key is kept,
// so a replay neither returns the content nor writes it again.
// Parameters: $ids (record ids already judged by record_erase_plan). Columns: erased (int).
MATCH (r:Record) WHERE r.id IN $ids
OPTIONAL MATCH (v:RecordVersion)-[:VERSION_OF]->(r)
DETACH DELETE v
WITH DISTINCT r
DETACH DELETE r
WITH count(*) AS erased
CALL (erased) {
  MATCH (k:IdempotencyKey)
  WHERE any(id IN $ids WHERE k.body CONTAINS id)
  SET k.status = 404,
      k.body = '{"error": {"type": "invalid_request_error", "code": "memory_record_not_found", '
             + '"message": "The record this request wrote was erased.", "param": null, "detail": null}}'
}
RETURN erased
