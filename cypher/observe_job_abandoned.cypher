// Pending jobs whose runner's lease ran out before $now (its process died), oldest first.
// Parameters: $now (int ms), $limit (int). Columns: id.
MATCH (j:ObserveJob {status: 'pending'})
WHERE coalesce(j.lease_until, 0) < $now
RETURN j.id AS id
ORDER BY j.created_at
LIMIT $limit
