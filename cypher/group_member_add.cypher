// Puts a member or a group into a group (idempotent: MERGE).
// Parameters: $group_id, $member_id (a member id or a group id).
// Columns: group_id, member_id; no row when either is unknown. Scope: admin only.
MATCH (g:Group {id: $group_id})
MATCH (x) WHERE (x:Member OR x:Group) AND x.id = $member_id
MERGE (x)-[:MEMBER_OF]->(g)
RETURN g.id AS group_id, x.id AS member_id
