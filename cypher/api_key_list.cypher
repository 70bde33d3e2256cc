// A member's keys, newest first, as an operator may know them: never the key or its hash.
// Parameters: $member_id. Columns: keys (list of maps: id, member_id, server, created_at,
// expires_at, last_used_at, revoked_at); no row when the member is unknown. Scope: admin surface only.
MATCH (m:Member {id: $member_id})
RETURN COLLECT {
  MATCH (k:ApiKey)-[:KEY_OF]->(m)
  WITH k ORDER BY k.created_at DESC, k.id
  RETURN k {.id, member_id: m.id, .server, .created_at, .expires_at, .last_used_at, .revoked_at}
} AS keys
