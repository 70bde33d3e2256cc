// Deletes one batch of what a memory and its descendants hold (records with their versions, grants,
// snapshots, runs, named queries), so a memory of any size is emptied within the transaction memory
// limit before memory_delete removes the memories themselves (and anything written meanwhile).
// Parameters: $id, $batch (int). Columns: deleted (int; 0 when nothing is left).
// Scope: the service has checked delete on the memory.
MATCH (:Memory {id: $id})<-[:CHILD_OF*0..]-(d:Memory)
MATCH (owned)-[:ON|IN]->(d)
WITH DISTINCT owned
LIMIT $batch
CALL (owned) {
  OPTIONAL MATCH (v:RecordVersion)-[:VERSION_OF]->(owned)
  DETACH DELETE v
}
DETACH DELETE owned
RETURN count(*) AS deleted
