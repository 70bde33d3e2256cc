// Reads a key's state while a concurrent first use is still running. Parameters: $id.
// Columns: state, status, body, fingerprint. No row when the key was released.
MATCH (k:IdempotencyKey {id: $id})
RETURN k.state AS state, k.status AS status, k.body AS body, k.fingerprint AS fingerprint
