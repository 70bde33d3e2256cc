// Creates a harness whose agent is an existing member; observe is on by default.
// Parameters: $id, $name, $member_id, $now (int ms). Columns: id, name, member_id, default_memory_id
// (null), observe (true), as harness_get reads them; no row when the member is unknown.
// Scope: admin surface only.
MATCH (m:Member {id: $member_id})
CREATE (h:Harness {id: $id, name: $name, member_id: $member_id, default_memory_id: null, observe: true,
                   created_at: $now})-[:AGENT]->(m)
RETURN h.id AS id, h.name AS name, h.member_id AS member_id, h.default_memory_id AS default_memory_id,
       h.observe AS observe
