// The facts for a memory's readable scope: the chain above it and every descendant within $depth,
// each with the caller's own grants, so access.py can walk inheritance and cutoffs in memory.
// Parameters: $member_id (string), $memory_id (string), $depth (int, or null for no limit).
// Columns: id, restricted, grants, above (maps: id, parent_id, restricted, grants; root first),
//   below (maps: id, parent_id, restricted, grants, dist, name). No row when the memory is unknown.
// Scope: reads facts only; the scope is decided in access.py before any record is touched.
OPTIONAL MATCH (:Member {id: $member_id})-[:MEMBER_OF*1..]->(grp:Group)
WITH ['member:' + $member_id] + collect(DISTINCT 'group:' + grp.id) AS principals
MATCH (m:Memory {id: $memory_id})
CALL (m, principals) {
  MATCH up = (m)-[:CHILD_OF*1..]->(a:Memory)
  WITH a, length(up) AS dist, principals
  ORDER BY dist DESC
  RETURN collect({
    id: a.id,
    parent_id: [(a)-[:CHILD_OF]->(p:Memory) | p.id][0],
    restricted: coalesce(a.restricted, false),
    grants: [(g:Grant)-[:ON]->(a) WHERE g.principal IN principals | g.privileges]
  }) AS above
}
CALL (m, principals) {
  MATCH down = (d:Memory)-[:CHILD_OF*1..]->(m)
  WHERE $depth IS NULL OR length(down) <= $depth
  RETURN collect({
    id: d.id,
    parent_id: nodes(down)[1].id,
    restricted: coalesce(d.restricted, false),
    grants: [(g:Grant)-[:ON]->(d) WHERE g.principal IN principals | g.privileges],
    dist: length(down),
    name: d.name
  }) AS below
}
RETURN m.id AS id, [(m)-[:CHILD_OF]->(p:Memory) | p.id][0] AS parent_id,
       coalesce(m.restricted, false) AS restricted,
       [(g:Grant)-[:ON]->(m) WHERE g.principal IN principals | g.privileges] AS grants,
       above, below
