// Query sandbox only: one Unavailable node per record a reference names outside the scope; it
// carries the target's record id and nothing else, as a read shows such a reference.
// Parameters: $ids (list of record ids). Columns: none.
// Scope: runs on a query sandbox, never on the main database.
UNWIND $ids AS id
CREATE (:Unavailable {id: id})
