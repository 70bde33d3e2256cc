// Removes file metadata after its bytes were erased. Parameters: $ids. Columns: deleted (int).
MATCH (f:File) WHERE f.id IN $ids
DETACH DELETE f
RETURN count(*) AS deleted
