// Claims an idempotency key for a request, or reports who has it. MERGE on a unique id takes the
// lock, so two concurrent first uses cannot both win; $token tells the winner it is the winner.
// A key created before $expires_before is taken over as new.
// Parameters: $id (caller hash + key), $fingerprint (hash of method, path and body), $token
//   (random string), $now (int ms), $expires_before (int ms).
// Columns: fresh (bool), fingerprint, state, status, body.
MERGE (k:IdempotencyKey {id: $id})
ON CREATE SET k.fingerprint = $fingerprint, k.state = 'pending', k.created_at = $now, k.claimed = $token
WITH k
CALL (k) {
  WITH k WHERE k.created_at < $expires_before
  SET k.fingerprint = $fingerprint, k.state = 'pending', k.created_at = $now, k.claimed = $token,
      k.status = null, k.body = null
}
RETURN k.claimed = $token AS fresh, k.fingerprint AS fingerprint, k.state AS state, k.status AS status,
       k.body AS body
