// Query sandbox only: creates one batch of one memory's Record nodes, each IN that memory, in the
// order given (the memory is found once, so the batch plans without an eager barrier).
// Parameters: $memory_id, $rows (list of maps: the Record's properties). Columns: none.
// Scope: runs on a query sandbox, never on the main database.
MATCH (m:Memory {id: $memory_id})
UNWIND $rows AS props
CREATE (r:Record)-[:IN]->(m)
SET r = props
