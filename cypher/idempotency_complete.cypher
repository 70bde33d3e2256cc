// Stores the answer to a request made under an idempotency key, for replays.
// Parameters: $id, $status (int), $body (string), $now (int ms). Columns: id.
MATCH (k:IdempotencyKey {id: $id})
SET k.state = 'done', k.status = $status, k.body = $body, k.completed_at = $now
RETURN k.id AS id
