// The facts for a memory's readable scope: the chain above it and every descendant within $depth,
// each with the caller's own grants, so access.py can walk inheritance and cutoffs in memory.
// Parameters: $member_id (string), $memory_id (string), $depth (int, or null for no limit).
// Columns: id, restricted, grants, records, records_version, total_records, above (maps: id,
//   parent_id, restricted, grants; root first), below (maps: id, parent_id, restricted, grants, dist,
//   name, records, records_version). No row when the memory is unknown.
// records is a memory's IN degree (its records of any status, plus the odd snapshot or named query,
// from the degree store); records_version is bumped by every write that changes a record's vector;
// total_records counts every Record (the count store). Recall sizes its scope from them (exact scan,
// cache or index) without a statement of its own.
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
    name: d.name,
    records: COUNT { (d)<-[:IN]-() },
    records_version: coalesce(d.records_version, 0)
  }) AS below
}
RETURN m.id AS id, [(m)-[:CHILD_OF]->(p:Memory) | p.id][0] AS parent_id,
       coalesce(m.restricted, false) AS restricted,
       [(g:Grant)-[:ON]->(m) WHERE g.principal IN principals | g.privileges] AS grants,
       COUNT { (m)<-[:IN]-() } AS records, coalesce(m.records_version, 0) AS records_version,
       COUNT { (:Record) } AS total_records, above, below
