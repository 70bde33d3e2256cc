// Reads memories with what access needs to judge them for one caller, in one round trip:
// each memory's properties and active record count, the chain above it (root first) and its
// direct children, every node with the caller's own grants on it.
// Parameters: $member_id (string), $ids (list of memory ids). Unknown ids yield no row.
// Columns: id, name, description, parent_id, restricted, provider, created_at, updated_at,
//   record_count, grants (list of privilege lists), above (list of maps: id, parent_id, restricted,
//   grants), children (list of maps: id, restricted, grants).
// Scope: reads facts only; access.py decides what the caller may see of them.
// The active record count is the memory's IN degree (kept by Neo4j, read without touching a record)
// less what else sits in a memory, each found through its memory_id index: forgotten records,
// snapshots, consolidation runs and named queries. Reading every record's status instead cost
// ~100 ms for a root with 100,000 records below its children.
OPTIONAL MATCH (:Member {id: $member_id})-[:MEMBER_OF*1..]->(grp:Group)
WITH ['member:' + $member_id] + collect(DISTINCT 'group:' + grp.id) AS principals
UNWIND $ids AS wanted
MATCH (m:Memory {id: wanted})
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
  MATCH (c:Memory)-[:CHILD_OF]->(m)
  RETURN collect({
    id: c.id,
    restricted: coalesce(c.restricted, false),
    grants: [(g:Grant)-[:ON]->(c) WHERE g.principal IN principals | g.privileges]
  }) AS children
}
RETURN m.id AS id, m.name AS name, m.description AS description,
       [(m)-[:CHILD_OF]->(p:Memory) | p.id][0] AS parent_id,
       coalesce(m.restricted, false) AS restricted, m.provider AS provider,
       m.created_at AS created_at, m.updated_at AS updated_at,
       COUNT { (m)<-[:IN]-() }
         - COUNT { (:Record {memory_id: m.id, status: 'forgotten'}) }
         - COUNT { (:Snapshot {memory_id: m.id}) }
         - COUNT { (:Consolidation {memory_id: m.id}) }
         - COUNT { (:NamedQuery {memory_id: m.id}) } AS record_count,
       [(g:Grant)-[:ON]->(m) WHERE g.principal IN principals | g.privileges] AS grants,
       above, children
