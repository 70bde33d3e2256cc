// Starts a run on a memory unless one is already running there; the memory's write lock (taken
// by the first SET) makes the check and the start one step. A run holds the memory under a lease
// its owner renews; a run whose lease ran out (its process died) is closed as failed here, so the
// memory is never busy for good, and the new run reads on from the last run that finished.
// Parameters: $id, $memory_id, $trigger, $now (int ms), $budget (int), $revert_of (run id or null),
//   $lease_until (int ms).
// Columns: id, started (bool: false when another run holds the memory), after (int ms) and after_id
// (record id): where the last finished run read through, to resume from; records are read in
// (written_at, id) order, so two written in one millisecond are never skipped.
// Scope: the service has checked write.
MATCH (m:Memory {id: $memory_id})
SET m.consolidation_lock = $now
WITH m
CALL (m) {
  MATCH (dead:Consolidation {memory_id: $memory_id, status: 'running'})
  WHERE coalesce(dead.lease_until, 0) < $now
  SET dead.status = 'failed', dead.finished_at = $now, dead.error = 'abandoned: its process stopped'
}
OPTIONAL MATCH (busy:Consolidation {memory_id: $memory_id, status: 'running'})
OPTIONAL MATCH (done:Consolidation {memory_id: $memory_id})
WHERE done.status IN ['completed', 'stopped'] AND done.revert_of IS NULL AND done.read_through IS NOT NULL
WITH m, busy, done
ORDER BY done.read_through DESC, done.read_through_id DESC
WITH m, busy, collect(done)[0] AS last
CALL (m, busy) {
  WITH m, busy WHERE busy IS NULL
  CREATE (c:Consolidation {id: $id, memory_id: $memory_id, status: 'running', trigger: $trigger,
                           started_at: $now, budget_limit: $budget, revert_of: $revert_of,
                           lease_until: $lease_until})-[:IN]->(m)
}
RETURN $id AS id, busy IS NULL AS started, coalesce(last.read_through, 0) AS after,
       coalesce(last.read_through_id, '') AS after_id
