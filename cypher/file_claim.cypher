// Claims orphan candidates for reclaiming. Each file's write lock is taken first (SET), then its
// label is read: a file a record write named meanwhile (file_name) is let go, the rest are claimed,
// and from now on no record write may name them. Safe to repeat (a crash leaves claims to retake).
// Parameters: $ids (file ids), $now (int ms). Columns: id (the claimed files).
UNWIND $ids AS wanted
MATCH (f:File {id: wanted})
SET f.reclaiming_at = $now
WITH f, f:Unnamed AS unnamed
FOREACH (_ IN CASE WHEN unnamed THEN [] ELSE [1] END | REMOVE f.reclaiming_at)
WITH f, unnamed WHERE unnamed
RETURN f.id AS id
