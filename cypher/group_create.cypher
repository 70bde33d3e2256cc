// Creates a group. Parameters: $id, $name, $now (int ms). Columns: id, name. Scope: admin only.
CREATE (g:Group {id: $id, name: $name, created_at: $now})
RETURN g.id AS id, g.name AS name
