// The data version of a readable scope: cheap aggregates that change whenever anything the query
// sandbox's copy of the scope holds changes (a record written, revised, forgotten or erased, a
// reference added or dropped, a memory renamed, moved or deleted), so a cached copy can be reused
// exactly while it is still true.
// Parameters: $scope (list of memory ids the access module judged readable).
// Columns: memories, memory_updated, records, versions, record_updated, references (ints or null).
// Scope: reads only the memories in $scope and their own records (through the record_memory index:
//   `created_at IS NOT NULL` lets the seek use it, and every record has one); nothing outside the
//   scope is counted, so two databases alike in what the caller may read give the same fingerprint.
CALL () {
  MATCH (m:Memory) WHERE m.id IN $scope
  RETURN count(m) AS memories, max(m.updated_at) AS memory_updated
}
CALL () {
  MATCH (r:Record) WHERE r.memory_id IN $scope AND r.created_at IS NOT NULL
  RETURN count(r) AS records, sum(r.version) AS versions, max(r.updated_at) AS record_updated,
         sum(count{ (r)-[:REFERENCES]->() }) AS references
}
RETURN memories, memory_updated, records, versions, record_updated, references
