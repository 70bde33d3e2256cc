// Reads one member by id. Parameters: $id (string). Columns: id, type, name (no row when unknown).
// Scope: used to resolve UHP-On-Behalf-Of and admin routes.
MATCH (m:Member {id: $id})
RETURN m.id AS id, m.type AS type, m.name AS name
