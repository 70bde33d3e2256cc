// Erases of a memory cut off part-way: what each still has to remove.
// Parameters: $memory_id. Columns: id, pending (list of record ids), oldest first.
// Scope: the service has checked delete on the memory (the erase that opened each note had, too).
MATCH (e:Erasure {memory_id: $memory_id})
WHERE size(coalesce(e.pending, [])) > 0
RETURN e.id AS id, e.pending AS pending
ORDER BY e.at, e.id
