// Lets go of claimed files a record version turned out to name (files kept from before names were
// marked): they lose :Unnamed and their claim, and the orphan sweep never takes them again.
// Parameters: $ids (file ids), $now (int ms). Columns: released (int).
UNWIND $ids AS wanted
MATCH (f:File {id: wanted})
REMOVE f:Unnamed, f.reclaiming_at
SET f.named_at = coalesce(f.named_at, $now)
RETURN count(f) AS released
