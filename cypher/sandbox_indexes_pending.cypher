// Query sandbox only: how many indexes are not yet online, polled after the template's schema is
// created (the sandbox allows no procedures beyond its allowlist, so db.awaitIndexes is not used).
// Parameters: none. Columns: pending (int). Scope: runs on a query sandbox, never on the main database.
SHOW INDEXES YIELD state
WHERE state <> 'ONLINE'
RETURN count(*) AS pending
