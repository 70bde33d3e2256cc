// Schema: keys issued before keys had ids get one, so every key can be listed, revoked and rotated.
// Idempotent (only keys without an id are touched). Parameters: none.
MATCH (k:ApiKey) WHERE k.id IS NULL
SET k.id = 'hkey_' + replace(randomUUID(), '-', '')
