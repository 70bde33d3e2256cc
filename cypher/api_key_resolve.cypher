// Finds who a presented key belongs to, by hash.
// Parameters: $hash (hex string). Columns: member_id, member_type, server (bool); no row when unknown.
MATCH (k:ApiKey {hash: $hash})-[:KEY_OF]->(m:Member)
RETURN m.id AS member_id, m.type AS member_type, k.server AS server
