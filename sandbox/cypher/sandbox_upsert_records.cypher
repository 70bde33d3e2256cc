// Query sandbox only: brings records of a held copy up to date, the ones the main database changed
// since the copy's version: a new record is created IN its memory, a changed one has its properties
// replaced (a revision, a forget, an attribute dropped), exactly as a fresh load would hold it.
// Parameters: $rows (list of maps: the Record's properties, with its id and memory_id). Columns: none.
// Scope: runs on a query sandbox, never on the main database.
UNWIND $rows AS props
MERGE (r:Record {id: props.id})
SET r = props
WITH r, props
MATCH (m:Memory {id: props.memory_id})
MERGE (r)-[:IN]->(m)
