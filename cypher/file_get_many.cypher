// Files by id, to complete a record's file parts from the server's own store.
// Parameters: $ids (list). Columns: id, owner, name, media_type, bytes, sha256. Unknown ids: no row.
// Scope: the service only lets a writer name files it uploaded.
UNWIND $ids AS wanted
MATCH (f:File {id: wanted})
RETURN f.id AS id, f.owner AS owner, f.name AS name, f.media_type AS media_type, f.bytes AS bytes,
       f.sha256 AS sha256
