// Query sandbox only: an Unavailable stub for each record a changed reference names outside the
// scope, unless the copy has it already.
// Parameters: $ids (list of record ids). Columns: none.
// Scope: runs on a query sandbox, never on the main database.
UNWIND $ids AS id
MERGE (:Unavailable {id: id})
