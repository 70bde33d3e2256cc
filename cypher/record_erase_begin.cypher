// Opens an erase before any record goes: an Erasure naming the records asked for and, as pending,
// every record the plan dooms. Batches of record_erase strike records off `pending`; an erase cut off
// part-way is finished by the next erase in the memory (record_erase_unfinished), and a retry of the
// same erase finds the named ids done, not unknown.
// Parameters: $erasure_id, $memory_id, $named (ids the caller named), $pending (ids to remove),
//   $now (int ms). Columns: id. Scope: the service has checked delete on the memory.
CREATE (e:Erasure {id: $erasure_id, memory_id: $memory_id, record_ids: $named, pending: $pending, at: $now})
RETURN e.id AS id
