// Query sandbox only: drops the tree between memories (it is linked again from the newer copy).
// Parameters: none. Columns: none.
// Scope: runs on a query sandbox, never on the main database.
MATCH (:Memory)-[e:CHILD_OF]->(:Memory)
DELETE e
