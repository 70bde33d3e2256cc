// Uploads no record has named, older than the grace: the orphan sweep's candidates, oldest first.
// Parameters: $before (int ms: created at or before), $limit (int). Columns: id.
MATCH (f:File:Unnamed)
WHERE f.created_at <= $before
RETURN f.id AS id
ORDER BY f.created_at
LIMIT $limit
