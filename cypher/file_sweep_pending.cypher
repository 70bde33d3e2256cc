// The oldest notes of files to check after an erase or a memory delete, made before $before (a
// request sweeps its own note at once; the sweeper takes any a dead process left).
// Parameters: $before (int ms), $limit (int). Columns: id, contents (list of content_json strings).
MATCH (s:FileSweep)
WHERE s.created_at <= $before
RETURN s.id AS id, s.contents AS contents
ORDER BY s.created_at
LIMIT $limit
