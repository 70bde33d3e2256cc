// Forgets finished jobs older than $before, at most $batch. Parameters: $before (int ms), $batch.
// Columns: swept (int).
MATCH (j:ObserveJob)
WHERE j.status IN ['completed', 'failed'] AND j.finished_at < $before
WITH j LIMIT $batch
DELETE j
RETURN count(*) AS swept
