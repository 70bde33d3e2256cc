// Stores an API key by its SHA-256 hash only; the key itself is shown once and never kept.
// Parameters: $member_id, $hash (hex string), $server (bool), $now (int ms).
// Columns: member_id (no row when the member is unknown). Scope: admin surface only.
MATCH (m:Member {id: $member_id})
CREATE (k:ApiKey {hash: $hash, server: $server, created_at: $now})-[:KEY_OF]->(m)
RETURN m.id AS member_id
