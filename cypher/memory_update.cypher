// Renames, describes or restricts a memory; null parameters leave a field as it is.
// Parameters: $id, $name, $description, $restricted (each nullable), $now (int ms).
// Columns: id; no row when unknown. Scope: the service has checked write (and delete for restricted).
MATCH (m:Memory {id: $id})
SET m.name = coalesce($name, m.name),
    m.description = coalesce($description, m.description),
    m.restricted = coalesce($restricted, m.restricted),
    m.updated_at = $now
RETURN m.id AS id
