// Removes a note of files to check, once its files' bytes are gone or still named.
// Parameters: $id. Columns: done (int).
MATCH (s:FileSweep {id: $id})
DELETE s
RETURN count(*) AS done
