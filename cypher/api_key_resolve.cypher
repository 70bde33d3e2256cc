// Finds who a presented key belongs to, by hash, while the key is in force: not revoked and not
// expired at $now. Unknown, revoked and expired give the same answer (no row), so a caller learns
// nothing about a key that once worked. Parameters: $hash (hex string), $now (int ms).
// Columns: member_id, member_type, server (bool), key_id, last_used_at (int ms or null).
// Scope: the edge, once per request.
MATCH (k:ApiKey {hash: $hash})-[:KEY_OF]->(m:Member)
WHERE (k.revoked_at IS NULL OR k.revoked_at > $now) AND (k.expires_at IS NULL OR k.expires_at > $now)
RETURN m.id AS member_id, m.type AS member_type, k.server AS server, k.id AS key_id,
       k.last_used_at AS last_used_at
