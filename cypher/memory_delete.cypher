// Deletes a memory, its descendants, their grants, records, versions and snapshots.
// Parameters: $id. Columns: memories (list of the ids removed, the named one first), payers (each
//   removed memory's charged_to, for usage_release), released (what versions written since the last
//   batch of memory_delete_batch were charged: payer, memory_id, records, bytes).
// Scope: the service has checked delete on the memory.
MATCH (m:Memory {id: $id})
MATCH path = (d:Memory)-[:CHILD_OF*0..]->(m)
WITH d, length(path) AS dist
ORDER BY dist
WITH collect(d) AS doomed
CALL (doomed) {
  UNWIND doomed AS d
  MATCH (v:RecordVersion)-[:VERSION_OF]->(:Record)-[:IN]->(d)
  WITH v.charged_to AS payer, d.id AS memory_id, sum(coalesce(v.charged_records, 0)) AS records,
       sum(coalesce(v.charged_bytes, 0)) AS bytes
  RETURN collect({payer: payer, memory_id: memory_id, records: records, bytes: bytes}) AS released
}
CALL (doomed) {
  UNWIND doomed AS d
  OPTIONAL MATCH (owned)-[:ON|IN]->(d)
  OPTIONAL MATCH (v:RecordVersion)-[:VERSION_OF]->(owned)
  DETACH DELETE v, owned
}
WITH doomed, released, [d IN doomed | d.id] AS ids, [d IN doomed | d.charged_to] AS payers
CALL (doomed) {
  UNWIND doomed AS d
  DETACH DELETE d
}
RETURN ids AS memories, payers, released
