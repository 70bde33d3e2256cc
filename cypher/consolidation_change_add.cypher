// Logs what a run did to one record, so the run can be listed and reverted.
// Parameters: $run_id, $seq (int), $record_id, $action ('created'|'superseded'|'forgotten'),
//   $before (int version or null), $after (int version or null), $now (int ms). Columns: seq.
MATCH (c:Consolidation {id: $run_id})
CREATE (:ConsolidationChange {run_id: $run_id, seq: $seq, record_id: $record_id, action: $action,
                              before: $before, after: $after, at: $now})-[:OF]->(c)
RETURN $seq AS seq
