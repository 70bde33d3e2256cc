// Closes a job: completed with the records it wrote, or failed with a reason. The episodes it held
// are dropped (they live on as records, or were refused), so a job keeps no content of its own.
// Parameters: $id, $owner, $status ('completed' or 'failed'), $record_ids (list), $error (string),
//   $now (int ms). Columns: id; no row when another runner took the job over.
MATCH (j:ObserveJob {id: $id, status: 'pending', owner: $owner})
SET j.status = $status, j.record_ids = $record_ids, j.error = $error, j.finished_at = $now,
    j.episodes_json = null, j.lease_until = null
RETURN j.id AS id
