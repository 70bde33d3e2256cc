// Lays the REFERENCES edges of restored records' current versions: an edge to a target that exists,
// else an AWAITS until it arrives. MERGE, so laying them again (a retried restore) adds nothing.
// Parameters: $rows (list of maps: id, references (list of maps: rel, record_id, position))).
// Stamps each record with its memory's next change_seq (the query sandbox's copies replay by it).
// Columns: linked (records linked, int). Scope: the ids are records this restore wrote or found identical.
UNWIND $rows AS row
MATCH (r:Record {id: row.id})
UNWIND row.references AS ref
OPTIONAL MATCH (t:Record {id: ref.record_id})
FOREACH (_ IN CASE WHEN t IS NOT NULL THEN [1] ELSE [] END |
  MERGE (r)-[:REFERENCES {rel: ref.rel, position: ref.position}]->(t))
FOREACH (_ IN CASE WHEN t IS NULL THEN [1] ELSE [] END |
  MERGE (w:Awaited {id: ref.record_id})
  MERGE (r)-[:AWAITS {rel: ref.rel, position: ref.position}]->(w))
WITH DISTINCT r
MATCH (m:Memory {id: r.memory_id})
SET m.id = m.id
SET m.change_seq = coalesce(m.change_seq, 0) + 1
SET r.change_seq = m.change_seq
RETURN count(*) AS linked
