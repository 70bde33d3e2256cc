// Frees a key whose request failed on the server side, so a retry runs again.
// Parameters: $id. Columns: released (int).
MATCH (k:IdempotencyKey {id: $id})
DELETE k
RETURN count(*) AS released
