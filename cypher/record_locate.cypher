// Which memory each named record is in, for resolving references by record id alone.
// Parameters: $ids (list of record ids). Columns: id, memory_id. Unknown ids yield no row.
// Scope: returns ids only; reading a target is judged separately with the reader's privileges.
UNWIND $ids AS wanted
MATCH (r:Record {id: wanted})
RETURN r.id AS id, r.memory_id AS memory_id
