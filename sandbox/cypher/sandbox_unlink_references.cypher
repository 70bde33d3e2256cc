// Query sandbox only: drops the references of records that changed; they are linked again right
// after from the records' current versions.
// Parameters: $ids (list of record ids). Columns: none.
// Scope: runs on a query sandbox, never on the main database.
UNWIND $ids AS id
MATCH (:Record {id: id})-[e:REFERENCES]->()
DELETE e
