// The records an erase names, judged before anything is removed: which are in the memory (with
// their memory), and which are missing. An id an earlier Erasure of this memory named is not missing:
// a retry of an erase that was cut off part-way finishes instead of failing.
// Parameters: $memory_id, $ids (list of record ids).
// Columns: missing (ids neither in the memory nor erased from it before), present (list of maps: id,
//   memory_id). Scope: the service has checked delete on the memory.
CALL () {
  UNWIND $ids AS wanted
  OPTIONAL MATCH (r:Record {id: wanted, memory_id: $memory_id})
  WITH wanted, r
  WHERE r IS NULL AND NOT EXISTS { MATCH (e:Erasure {memory_id: $memory_id}) WHERE wanted IN e.record_ids }
  RETURN collect(wanted) AS missing
}
CALL () {
  MATCH (r:Record) WHERE r.id IN $ids AND r.memory_id = $memory_id
  RETURN collect({id: r.id, memory_id: r.memory_id}) AS present
}
RETURN missing, present
