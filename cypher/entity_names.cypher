// The active entity records of some memories, with the names they go by, for observe's linking.
// Parameters: $memory_ids (list). Columns: id, memory_id, title, text, aliases (list or null).
// Scope: the service passes only the memory observed and ancestors the observer may read.
MATCH (e:Record)
WHERE e.memory_id IN $memory_ids AND e.type = 'entity' AND e.status = 'active'
RETURN e.id AS id, e.memory_id AS memory_id, e.title AS title, e.text AS text, e.`attr.aliases` AS aliases
