// Records an observe whose derivation runs after the answer: the episodes to keep, for whom, and a
// lease its runner holds. A job with this id already there is left as it is (a retry under the
// same Idempotency-Key derives the same id).
// Parameters: $id, $memory_id, $member_id, $member_type, $via_server (bool), $episodes_json,
//   $count (int), $now (int ms), $lease_until (int ms), $owner (string).
// Columns: id, status. Scope: the service has checked write on the memory.
MERGE (j:ObserveJob {id: $id})
ON CREATE SET j.memory_id = $memory_id, j.member_id = $member_id, j.member_type = $member_type,
              j.via_server = $via_server, j.episodes_json = $episodes_json, j.count = $count,
              j.status = 'pending', j.created_at = $now, j.lease_until = $lease_until, j.owner = $owner
RETURN j.id AS id, j.status AS status
