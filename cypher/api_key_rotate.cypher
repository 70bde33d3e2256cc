// Replaces a member's key in one transaction: a new key with the old one's server flag, and the
// old one ended at $old_ends (now, or the end of the grace; an earlier end is kept).
// Parameters: $member_id, $old_id, $id (the new key's, hkey_…), $hash (hex string), $now (int ms),
// $old_ends (int ms), $expires_at (int ms or null: the new key's expiry).
// Columns: key, previous (maps: id, member_id, server, created_at, expires_at, last_used_at,
// revoked_at); no row when the member or the old key is unknown. Scope: admin surface only.
MATCH (old:ApiKey {id: $old_id})-[:KEY_OF]->(m:Member {id: $member_id})
SET old.revoked_at = CASE
      WHEN old.revoked_at IS NULL OR old.revoked_at > $old_ends THEN $old_ends ELSE old.revoked_at
    END
CREATE (k:ApiKey {id: $id, hash: $hash, server: old.server, created_at: $now, expires_at: $expires_at})
CREATE (k)-[:KEY_OF]->(m)
RETURN k {.id, member_id: m.id, .server, .created_at, .expires_at, .last_used_at, .revoked_at} AS key,
       old {.id, member_id: m.id, .server, .created_at, .expires_at, .last_used_at, .revoked_at} AS previous
