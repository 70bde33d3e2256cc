// Every memory the caller (or one of its groups) holds a grant on, with each one's chain up to
// its root, as a distinct list of nodes; access.py derives entry points and the granted listing.
// Parameters: $member_id (string).
// Columns: id, parent_id, restricted, grants (list of privilege lists), depth (0 at a root), name.
// Scope: reads facts only.
OPTIONAL MATCH (:Member {id: $member_id})-[:MEMBER_OF*1..]->(grp:Group)
WITH ['member:' + $member_id] + collect(DISTINCT 'group:' + grp.id) AS principals
MATCH (g:Grant)-[:ON]->(n:Memory)
WHERE g.principal IN principals
WITH DISTINCT n, principals
MATCH up = (n)-[:CHILD_OF*0..]->(r:Memory)
WHERE NOT (r)-[:CHILD_OF]->()
UNWIND range(0, length(up)) AS i
WITH DISTINCT nodes(up)[i] AS a, length(up) - i AS depth, principals
RETURN a.id AS id, [(a)-[:CHILD_OF]->(p:Memory) | p.id][0] AS parent_id,
       coalesce(a.restricted, false) AS restricted,
       [(g:Grant)-[:ON]->(a) WHERE g.principal IN principals | g.privileges] AS grants,
       depth, a.name AS name
