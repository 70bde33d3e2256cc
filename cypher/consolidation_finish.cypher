// Closes a run with what it read and changed.
// Parameters: $id, $status, $now (int ms), $examined (int), $through (int ms or null), $through_id (record id or null),
//   $created, $superseded, $forgotten (ints), $exhausted (bool), $error (string).
// Columns: id.
MATCH (c:Consolidation {id: $id})
SET c.status = $status, c.finished_at = $now, c.read_examined = $examined,
    c.read_through = $through, c.read_through_id = $through_id, c.changes_created = $created, c.changes_superseded = $superseded,
    c.changes_forgotten = $forgotten, c.budget_exhausted = $exhausted, c.error = $error
RETURN c.id AS id
