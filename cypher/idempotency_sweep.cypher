// Deletes keys whose 48 hours are over, and pending keys whose owner's lease ran out long ago (a
// retry would take them over anyway; nothing waits on them), at most $batch at a time.
// Parameters: $expires_before (int ms), $stale_before (int ms), $batch (int). Columns: swept (int).
MATCH (k:IdempotencyKey)
WHERE k.created_at < $expires_before
   OR (k.state = 'pending' AND coalesce(k.lease_until, 0) < $stale_before)
WITH k LIMIT $batch
DELETE k
RETURN count(*) AS swept
