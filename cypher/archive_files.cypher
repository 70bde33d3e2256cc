// File metadata for an export or a restore's check, by id; the bytes are in the blob store at sha256.
// Parameters: $ids (file ids). Columns: id, name, media_type, bytes, sha256, purpose, created_at.
// Unknown ids: no row. Scope: the ids come from versions of records the caller may read.
UNWIND $ids AS wanted
MATCH (f:File {id: wanted})
RETURN f.id AS id, f.name AS name, f.media_type AS media_type, f.bytes AS bytes, f.sha256 AS sha256,
       f.purpose AS purpose, f.created_at AS created_at
