// The active facts and entities (plain, people, companies) of a memory with what the run's rules
// read, oldest first: `fresh` marks those written after the last run read through (the ones this
// run examines).
// Parameters: $memory_id, $after (int ms), $after_id (record id; '' for none), $entity_types (list
//   of the type names records are about), $slot (the vector property recall reads). Columns: id, type, title, text, written_at, valid_to_ms,
//   embedding, subject (record id or null), name, aliases, emails, domains (string, list or null),
//   fresh (bool).
// Scope: the service has checked write on the memory; only its records are read.
MATCH (r:Record {memory_id: $memory_id})
WHERE r.status = 'active' AND (r.type = 'fact' OR r.type IN $entity_types)
RETURN r.id AS id, r.type AS type, r.title AS title, r.text AS text, r.written_at AS written_at,
       r.valid_to_ms AS valid_to_ms, r[$slot] AS embedding,
       [(r)-[e:REFERENCES {rel: 'subject'}]->(s:Record) | s.id][0] AS subject,
       r.`attr.name` AS name, r.`attr.aliases` AS aliases, r.`attr.emails` AS emails,
       r.`attr.domains` AS domains,
       (r.written_at > $after OR (r.written_at = $after AND r.id > $after_id)) AS fresh
ORDER BY r.written_at, r.id
