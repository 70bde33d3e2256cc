// Query sandbox only: removes the stubs no reference names any more, as a fresh load would not make
// them.
// Parameters: none. Columns: none. Scope: runs on a query sandbox, never on the main database.
MATCH (u:Unavailable)
WHERE NOT EXISTS { ()-[:REFERENCES]->(u) }
DELETE u
