// Notes when a key last authenticated, at most once per $every ms, so a busy key does not write on
// every request. Parameters: $id (string), $now (int ms), $every (int ms). Columns: none.
// Scope: the edge, after a key resolved.
MATCH (k:ApiKey {id: $id})
WHERE k.last_used_at IS NULL OR k.last_used_at <= $now - $every
SET k.last_used_at = $now
