// Takes a member or group out of a group.
// Parameters: $group_id, $member_id. Columns: removed (int), group_found (bool). Scope: admin only.
OPTIONAL MATCH (g:Group {id: $group_id})
OPTIONAL MATCH (x)-[rel:MEMBER_OF]->(g) WHERE x.id = $member_id
DELETE rel
RETURN count(rel) AS removed, g IS NOT NULL AS group_found
