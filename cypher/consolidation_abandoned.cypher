// Closes as failed every run whose lease ran out before $now: its process died mid-run. What it
// changed is in its change log, so it can still be reverted. Parameters: $now (int ms).
// Columns: closed (int).
MATCH (c:Consolidation {status: 'running'})
WHERE coalesce(c.lease_until, 0) < $now
SET c.status = 'failed', c.finished_at = $now, c.error = 'abandoned: its process stopped'
RETURN count(c) AS closed
