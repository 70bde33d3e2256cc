// Restores one file's metadata (its bytes are kept at sha256 first), named by the records restored
// with it, so the orphan sweep leaves it be. A file whose id exists is left as it is and returned.
// Parameters: $file (map: id, name, media_type, bytes, sha256, purpose, created_at), $owner
//   (the restorer's principal), $now. Columns: id, sha256, created (bool).
// Scope: the service has checked create and write on the target.
OPTIONAL MATCH (existing:File {id: $file.id})
CALL (existing) {
  WITH existing
  WHERE existing IS NULL
  CREATE (f:File {id: $file.id, owner: $owner, name: $file.name, media_type: $file.media_type,
                  bytes: $file.bytes, sha256: $file.sha256, purpose: $file.purpose,
                  created_at: $file.created_at, named_at: $now})
  RETURN f, true AS created
  UNION
  WITH existing
  WHERE existing IS NOT NULL
  RETURN existing AS f, false AS created
}
RETURN f.id AS id, f.sha256 AS sha256, created
