// Forgets notes of finished erases older than $before (a retry after that long is a new erase).
// Parameters: $before (int ms), $batch (int). Columns: swept (int).
MATCH (e:Erasure)
WHERE e.at < $before
WITH e LIMIT $batch
DELETE e
RETURN count(*) AS swept
