// Deletes one batch of what a memory and its descendants hold (records with their versions, grants,
// snapshots, runs, named queries), so a memory of any size is emptied within the transaction memory
// limit before memory_delete removes the memories themselves (and anything written meanwhile). In
// the same transaction, the contents of deleted versions that named files go into a FileSweep, so
// their bytes are removed once no version names them, even if the process dies right after. A record
// elsewhere whose current version names a deleted one awaits it again (AWAITS), as after an erase.
// Parameters: $id, $batch (int), $sweep_id, $now (int ms). Columns: deleted (int; 0 when nothing is left),
//   released (list of maps: payer, memory_id, records, bytes: what the batch's versions were charged).
// Bumps the memories' records_version (recall's vector cache): their records are going.
// Scope: the service has checked delete on the memory.
MATCH (:Memory {id: $id})<-[:CHILD_OF*0..]-(d:Memory)
MATCH (owned)-[:ON|IN]->(d)
WITH DISTINCT owned
LIMIT $batch
WITH collect(owned) AS batch
CALL (batch) {
  UNWIND batch AS owned
  MATCH (v:RecordVersion)-[:VERSION_OF]->(owned)
  WHERE v.content_json CONTAINS '"file"'
  RETURN collect(v.content_json) AS contents
}
FOREACH (_ IN CASE WHEN size(contents) > 0 THEN [1] ELSE [] END |
  CREATE (:FileSweep {id: $sweep_id, contents: contents, created_at: $now}))
WITH batch
CALL (batch) {
  UNWIND batch AS owned
  MATCH (v:RecordVersion)-[:VERSION_OF]->(owned)
  WITH v.charged_to AS payer, owned.memory_id AS memory_id, sum(coalesce(v.charged_records, 0)) AS records,
       sum(coalesce(v.charged_bytes, 0)) AS bytes
  RETURN collect({payer: payer, memory_id: memory_id, records: records, bytes: bytes}) AS released
}
WITH batch, released
CALL (batch) {
  UNWIND batch AS owned
  MATCH (src:Record)-[e:REFERENCES]->(owned)
  WHERE owned:Record AND NOT src IN batch
  MERGE (w:Awaited {id: owned.id})
  CREATE (src)-[:AWAITS {rel: e.rel, position: e.position}]->(w)
  WITH DISTINCT src.memory_id AS memory_id
  MATCH (m:Memory {id: memory_id})
  SET m.copy_epoch = coalesce(m.copy_epoch, 0) + 1
}
CALL (batch) {
  UNWIND batch AS owned
  MATCH (owned)-[:AWAITS]->(w:Awaited)
  WITH DISTINCT w, batch
  WHERE NOT EXISTS { MATCH (other:Record)-[:AWAITS]->(w) WHERE NOT other IN batch }
  DETACH DELETE w
}
UNWIND batch AS owned
CALL (owned) {
  OPTIONAL MATCH (v:RecordVersion)-[:VERSION_OF]->(owned)
  DETACH DELETE v
}
DETACH DELETE owned
WITH head(collect(released)) AS released, count(*) AS deleted
CALL () {
  MATCH (:Memory {id: $id})<-[:CHILD_OF*0..]-(d:Memory)
  SET d.records_version = coalesce(d.records_version, 0) + 1
}
RETURN deleted, released
