// Whether a consolidation runs in a memory or anywhere below it (moves and deletes wait). A run
// whose lease ran out is not running: its process died, and the sweeper will close it.
// Parameters: $memory_id, $now (int ms). Columns: busy (bool).
MATCH (d:Memory)-[:CHILD_OF*0..]->(:Memory {id: $memory_id})
RETURN EXISTS {
  MATCH (c:Consolidation {status: 'running'}) WHERE c.memory_id = d.id AND coalesce(c.lease_until, 0) >= $now
} AS busy
ORDER BY busy DESC
LIMIT 1
