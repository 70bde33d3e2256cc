// The active records of some memories that others are about (entities, people, companies), with
// the names they go by, for observe's linking.
// Parameters: $memory_ids (list), $types (list of type names). Columns: id, memory_id, type, title,
//   text, name, aliases, emails, domains (each a string, a list of strings, or null).
// Scope: the service passes only the memory observed and ancestors the observer may read.
MATCH (e:Record)
WHERE e.memory_id IN $memory_ids AND e.type IN $types AND e.status = 'active'
RETURN e.id AS id, e.memory_id AS memory_id, e.type AS type, e.title AS title, e.text AS text,
       e.`attr.name` AS name, e.`attr.aliases` AS aliases, e.`attr.emails` AS emails,
       e.`attr.domains` AS domains
