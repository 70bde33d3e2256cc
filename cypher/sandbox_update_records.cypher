// Query sandbox only: replaces the properties of records that changed (revised, forgotten).
// Parameters: $rows (list of maps: the Record's properties, with its id). Columns: none.
// Scope: runs on a query sandbox, never on the main database.
UNWIND $rows AS props
MATCH (r:Record {id: props.id})
SET r = props
