// Active records that hold a reference to a record, for re-pointing them at a merged entity.
// Parameters: $id (record id). Columns: id, memory_id.
MATCH (r:Record)-[:REFERENCES]->(:Record {id: $id})
WHERE r.status = 'active'
RETURN DISTINCT r.id AS id, r.memory_id AS memory_id
