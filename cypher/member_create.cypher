// Creates a member (a person or an agent).
// Parameters: $id (string), $type ('human'|'agent'), $name (string), $now (int, ms).
// Columns: id, type, name. Scope: admin surface only.
CREATE (m:Member {id: $id, type: $type, name: $name, created_at: $now})
RETURN m.id AS id, m.type AS type, m.name AS name
