// The references held by a set of records: each edge from the holder to the record it names,
// with the target's memory so the service can judge whether the reader may follow it.
// Parameters: $ids (record ids already in scope). Columns: from_id, from_memory, to_id, to_memory, rel.
// Scope: sources are in scope; targets are judged by the service before anything of them is shown.
UNWIND $ids AS source
MATCH (s:Record {id: source})-[e:REFERENCES]->(t:Record)
RETURN s.id AS from_id, s.memory_id AS from_memory, t.id AS to_id, t.memory_id AS to_memory, e.rel AS rel
ORDER BY from_id, e.position
