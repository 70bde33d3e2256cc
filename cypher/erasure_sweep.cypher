// Forgets notes of finished erases older than $before (a retry after that long is a new erase); a
// note with records still pending is an erase cut off part-way, kept until an erase finishes it.
// Parameters: $before (int ms), $batch (int). Columns: swept (int).
MATCH (e:Erasure)
WHERE e.at < $before AND size(coalesce(e.pending, [])) = 0
WITH e LIMIT $batch
DELETE e
RETURN count(*) AS swept
