// Extends the lease of a key its owner is still working under, so a long request is not taken over.
// Parameters: $id, $token (the owner's claim), $lease_until (int ms). Columns: renewed (int).
MATCH (k:IdempotencyKey {id: $id})
WHERE k.claimed = $token AND k.state = 'pending'
SET k.lease_until = $lease_until
RETURN count(k) AS renewed
