// Marks files as named by a record about to be written, so the orphan sweep never takes them. Each
// file's write lock is taken first (SET), then its claim is read: a file the sweep has claimed for
// reclaiming is refused (the writer is told no such file exists), any other loses :Unnamed for good.
// A record write that fails after this leaves its files marked: they stay, counted in the quota.
// Parameters: $ids (file ids), $now (int ms). Columns: id, free (false: being reclaimed).
UNWIND $ids AS wanted
MATCH (f:File {id: wanted})
SET f.named_at = coalesce(f.named_at, $now)
WITH f, f.reclaiming_at IS NULL AS free
FOREACH (_ IN CASE WHEN free THEN [1] ELSE [] END | REMOVE f:Unnamed)
FOREACH (_ IN CASE WHEN free THEN [] ELSE [1] END | REMOVE f.named_at)
RETURN f.id AS id, free
