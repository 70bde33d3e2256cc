// Takes a pending job for a runner: its own (same owner) or one whose lease ran out (its process
// died). Parameters: $id, $owner, $now (int ms), $lease_until (int ms).
// Columns: id, memory_id, member_id, member_type, via_server, episodes_json; no row when the job is
// done or another runner holds it.
MATCH (j:ObserveJob {id: $id, status: 'pending'})
WHERE j.owner = $owner OR coalesce(j.lease_until, 0) < $now
SET j.owner = $owner, j.lease_until = $lease_until
RETURN j.id AS id, j.memory_id AS memory_id, j.member_id AS member_id, j.member_type AS member_type,
       j.via_server AS via_server, j.episodes_json AS episodes_json
