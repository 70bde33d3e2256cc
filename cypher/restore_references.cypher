// Lays the REFERENCES edges of restored records' current versions, to targets that exist; MERGE, so
// laying them again (a retried restore) adds nothing.
// Parameters: $rows (list of maps: id, references (list of maps: rel, record_id, position))).
// Columns: linked (int). Scope: the ids are records this restore wrote or found identical.
UNWIND $rows AS row
MATCH (r:Record {id: row.id})
UNWIND row.references AS ref
MATCH (t:Record {id: ref.record_id})
MERGE (r)-[:REFERENCES {rel: ref.rel, position: ref.position}]->(t)
RETURN count(*) AS linked
