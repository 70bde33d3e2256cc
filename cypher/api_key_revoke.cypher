// Ends a member's key at $at (now); a key whose end is already earlier keeps it, and one whose end
// a rotation's grace put later is ended now. Parameters: $member_id, $id (string), $at (int ms).
// Columns: key (map: id, member_id, server, created_at, expires_at, last_used_at, revoked_at); no
// row when the member or the key is unknown, or the key is another member's. Scope: admin surface only.
MATCH (k:ApiKey {id: $id})-[:KEY_OF]->(m:Member {id: $member_id})
SET k.revoked_at = CASE WHEN k.revoked_at IS NULL OR k.revoked_at > $at THEN $at ELSE k.revoked_at END
RETURN k {.id, member_id: m.id, .server, .created_at, .expires_at, .last_used_at, .revoked_at} AS key
