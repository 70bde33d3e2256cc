// Query sandbox only: waits until the eventually consistent full-text index holds every committed
// change, so a statement run after a load or a difference sees the whole copy in it.
// Parameters: none. Columns: none. Scope: runs on a query sandbox, never on the main database.
CALL db.index.fulltext.awaitEventuallyConsistentIndexRefresh()
