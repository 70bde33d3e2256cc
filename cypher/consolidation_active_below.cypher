// Whether a consolidation runs in a memory or anywhere below it (moves and deletes wait).
// Parameters: $memory_id. Columns: busy (bool).
MATCH (d:Memory)-[:CHILD_OF*0..]->(:Memory {id: $memory_id})
RETURN EXISTS { MATCH (c:Consolidation {status: 'running'}) WHERE c.memory_id = d.id } AS busy
ORDER BY busy DESC
LIMIT 1
