// Erases records for good: every version (content, words, attributes, embedding) and the Record
// node with its index entries and references; stored answers to idempotent writes that carry one
// of these ids go too, since they hold the content.
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
  DETACH DELETE k
}
RETURN erased
