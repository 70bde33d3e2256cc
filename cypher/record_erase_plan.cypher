// What an erase of some records reaches: the records named (which must be in the memory), every
// record derived from them whose derived_from sources are all being erased (followed to a fixed
// point, five levels deep).
// Parameters: $memory_id, $ids (list of record ids).
// Columns: missing (ids not in the memory and not erased from it before), doomed (list of maps: id,
//   memory_id). An id an earlier Erasure of this memory named is not missing: a retry of an erase
//   that was cut off part-way finishes instead of failing. (record_erase notes the files they name.)
// Scope: the service has checked delete on the memory; derived copies elsewhere are reached too,
// because erase is a person's right over what was concluded from their words.
CALL () {
  UNWIND $ids AS wanted
  OPTIONAL MATCH (r:Record {id: wanted, memory_id: $memory_id})
  WITH wanted, r
  WHERE r IS NULL AND NOT EXISTS { MATCH (e:Erasure {memory_id: $memory_id}) WHERE wanted IN e.record_ids }
  RETURN collect(wanted) AS missing
}
CALL () {
  MATCH (r:Record) WHERE r.id IN $ids AND r.memory_id = $memory_id
  OPTIONAL MATCH (d:Record)-[:REFERENCES*1..5 {rel: 'derived_from'}]->(r)
  WITH collect(DISTINCT r) + collect(DISTINCT d) AS reached
  UNWIND reached AS candidate
  WITH DISTINCT candidate, reached
  WHERE candidate.id IN $ids
     OR all(src IN [(candidate)-[:REFERENCES {rel: 'derived_from'}]->(s:Record) | s] WHERE src IN reached)
  RETURN collect({id: candidate.id, memory_id: candidate.memory_id}) AS doomed
}
RETURN missing, doomed
