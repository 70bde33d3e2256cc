// The memories an export carries, by id: what the archive keeps of each (its place is the caller's).
// Parameters: $ids (memory ids already judged readable by access.py). Columns: id, name,
//   description, restricted, created_at, updated_at, created_by. Unknown ids: no row.
// Scope: the export service has computed the readable subtree before calling.
UNWIND $ids AS wanted
MATCH (m:Memory {id: wanted})
RETURN m.id AS id, m.name AS name, coalesce(m.description, '') AS description,
       coalesce(m.restricted, false) AS restricted, m.created_at AS created_at,
       m.updated_at AS updated_at, m.created_by AS created_by
