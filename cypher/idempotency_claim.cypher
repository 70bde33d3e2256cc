// Claims an idempotency key for a request, or reports who has it. MERGE on a unique id takes the
// lock, so two concurrent first uses cannot both win; $token tells the winner it is the winner.
// A key is taken over as new when it was made before $expires_before (its 48 hours are over), and
// taken over with its `created_at` kept when it is still pending but its owner's lease ran out (the
// owner died mid-request): the taker then derives the same ids the dead owner did, so the work is
// done once.
// Parameters: $id (principal + key), $fingerprint (hash of method, path and body), $token (random
//   string), $now (int ms), $expires_before (int ms), $lease_until (int ms).
// Columns: fresh (bool), fingerprint, state, status, body, created_at.
MERGE (k:IdempotencyKey {id: $id})
ON CREATE SET k.fingerprint = $fingerprint, k.state = 'pending', k.created_at = $now, k.claimed = $token,
              k.lease_until = $lease_until
WITH k
CALL (k) {
  WITH k WHERE k.created_at < $expires_before
  SET k.fingerprint = $fingerprint, k.state = 'pending', k.created_at = $now, k.claimed = $token,
      k.lease_until = $lease_until, k.status = null, k.body = null
}
CALL (k) {
  WITH k WHERE k.state = 'pending' AND coalesce(k.lease_until, 0) < $now AND k.claimed <> $token
    AND k.fingerprint = $fingerprint
  SET k.claimed = $token, k.lease_until = $lease_until
}
RETURN k.claimed = $token AS fresh, k.fingerprint AS fingerprint, k.state AS state, k.status AS status,
       k.body AS body, k.created_at AS created_at
