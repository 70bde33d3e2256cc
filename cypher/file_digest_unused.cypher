// Of some SHA-256 digests, those no file still has, so their bytes may be removed from the blob store.
// Parameters: $digests (list of hex strings). Columns: sha256. Scope: runs after an erase.
UNWIND $digests AS digest
WITH digest
WHERE NOT EXISTS { MATCH (:File {sha256: digest}) }
RETURN digest AS sha256
