// Records an uploaded file's metadata; its bytes live in the blob store at `sha256`.
// Parameters: $id, $owner (principal), $name, $media_type, $bytes (int), $sha256, $purpose, $now.
// Columns: id, name, media_type, bytes, created_at, purpose. Scope: the uploader owns the file.
CREATE (f:File {id: $id, owner: $owner, name: $name, media_type: $media_type, bytes: $bytes,
                sha256: $sha256, purpose: $purpose, created_at: $now})
RETURN f.id AS id, f.name AS name, f.media_type AS media_type, f.bytes AS bytes,
       f.created_at AS created_at, f.purpose AS purpose
