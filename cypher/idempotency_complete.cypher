// Stores the answer to a request made under an idempotency key, for replays; only the key's current
// owner may (a request whose lease was taken over must not overwrite the taker's answer).
// Parameters: $id, $token, $status (int), $body (string), $now (int ms). Columns: id.
MATCH (k:IdempotencyKey {id: $id})
WHERE k.claimed = $token
SET k.state = 'done', k.status = $status, k.body = $body, k.completed_at = $now, k.lease_until = null
RETURN k.id AS id
