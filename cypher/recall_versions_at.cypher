// The version of each record that was current at an instant, for turning a history recall's hits
// into full records: one version a record (the highest when two were written in the same
// millisecond), never the record's other versions.
// Parameters: $ids (list of record ids), $at (int ms). Columns: version (property map without the
// embedding). Scope: the ids come from a scoped search; the service keeps only those in scope.
UNWIND $ids AS wanted
MATCH (rec:Record {id: wanted})
CALL (rec) {
  MATCH (v:RecordVersion)-[:VERSION_OF]->(rec)
  WHERE v.written_at <= $at AND (v.superseded_at IS NULL OR v.superseded_at > $at)
  WITH v ORDER BY v.version DESC LIMIT 1
  RETURN v {.*, embedding: null, embedding_b: null} AS version
}
RETURN version
