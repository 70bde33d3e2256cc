// Of some SHA-256 digests, those no file holds but the ones about to go, so their bytes may be
// removed from the blob store first: the files' metadata is deleted only after their bytes, so a
// crash in between leaves metadata a later sweep finds again, never bytes nothing points to.
// Parameters: $digests (list of hex strings), $leaving (ids of the files about to be deleted).
// Columns: sha256. Scope: runs after an erase or a memory delete.
UNWIND $digests AS digest
WITH digest
WHERE NOT EXISTS { MATCH (f:File {sha256: digest}) WHERE NOT f.id IN $leaving }
RETURN digest AS sha256
