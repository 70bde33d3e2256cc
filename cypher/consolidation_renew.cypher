// Extends a running consolidation's lease, so a long run is not taken for dead.
// Parameters: $id, $lease_until (int ms). Columns: renewed (int).
MATCH (c:Consolidation {id: $id, status: 'running'})
SET c.lease_until = $lease_until
RETURN count(c) AS renewed
