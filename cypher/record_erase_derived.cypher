// One step of an erase's walk down derived_from: the records derived from any of $ids, each with
// every derived_from source it names (reached or not), so the service can judge, to a fixed point,
// which are derived only from what is being erased. The service walks step by step, any depth,
// keeping what it has seen, so a cycle ends the walk instead of looping.
// Parameters: $ids (record ids of the step's frontier).
// Columns: id, memory_id, sources (list of the ids of its derived_from targets).
// Scope: the service has checked delete on the erased records' memory; derived copies elsewhere are
// reached too, because erase is a person's right over what was concluded from their words.
UNWIND $ids AS source_id
MATCH (:Record {id: source_id})<-[:REFERENCES {rel: 'derived_from'}]-(d:Record)
WITH DISTINCT d
RETURN d.id AS id, d.memory_id AS memory_id,
       [(d)-[:REFERENCES {rel: 'derived_from'}]->(s:Record) | s.id] AS sources
