// The grants that bear on a memory: the chain from the memory up to its root (itself first), each
// node with its cutoff and the grants sitting on it, so the service can stop at the nearest
// restricted node and leave out ancestors the caller cannot see.
// Parameters: $memory_id. Columns: memory_id, dist, restricted, grants (maps: id, principal,
//   privileges, implicit). Scope: the service has checked the caller may read the memory.
MATCH up = (m:Memory {id: $memory_id})-[:CHILD_OF*0..]->(a:Memory)
RETURN a.id AS memory_id, length(up) AS dist, coalesce(a.restricted, false) AS restricted,
       [(g:Grant)-[:ON]->(a) | {id: g.id, principal: g.principal, privileges: g.privileges,
                                implicit: coalesce(g.implicit, false), created_at: g.created_at}] AS grants
ORDER BY dist
