// Frees a key whose request failed on the server side, so a retry runs again; only its owner may.
// Parameters: $id, $token. Columns: released (int).
MATCH (k:IdempotencyKey {id: $id})
WHERE k.claimed = $token
DELETE k
RETURN count(*) AS released
