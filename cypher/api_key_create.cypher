// Stores an API key by its SHA-256 hash only; the key itself is shown once and never kept.
// Parameters: $member_id, $id (string, hkey_…), $hash (hex string), $server (bool), $now (int ms),
// $expires_at (int ms, or null for a key that does not expire).
// Columns: key (map: id, member_id, server, created_at, expires_at, last_used_at, revoked_at; never
// the hash); no row when the member is unknown. Scope: admin surface only.
MATCH (m:Member {id: $member_id})
CREATE (k:ApiKey {id: $id, hash: $hash, server: $server, created_at: $now, expires_at: $expires_at})
CREATE (k)-[:KEY_OF]->(m)
RETURN k {.id, member_id: m.id, .server, .created_at, .expires_at, .last_used_at, .revoked_at} AS key
