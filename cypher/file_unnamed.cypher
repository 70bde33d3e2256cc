// Of some files, those no remaining record version names, so their bytes may be removed.
// Parameters: $ids (file ids). Columns: id, sha256. Scope: runs after an erase.
UNWIND $ids AS wanted
MATCH (f:File {id: wanted})
WHERE NOT EXISTS { MATCH (v:RecordVersion) WHERE v.content_json CONTAINS wanted }
RETURN f.id AS id, f.sha256 AS sha256
