// How many records the scope holds, and how many the whole store holds, to choose exact similarity
// or an index search per request. in_scope is the memories' IN degree (records of any status, plus
// the odd snapshot or named query): an upper bound read from the degree store in O(memories),
// where counting embedded records touched every record of the scope (~50 ms at 100,000). A high
// estimate only sends a search to the index, whose over-fetch loop and exact fallback still hold.
// versions pairs each memory with its records_version, which every statement that changes a
// record's embedding bumps: recall's vector cache is keyed by it.
// Parameters: $scope (list of memory ids the access module judged readable).
// Columns: in_scope (int), total (int), versions (list of [memory id, int]).
// Scope: counts only the memories in $scope.
CALL () {
  UNWIND $scope AS memory_id
  MATCH (m:Memory {id: memory_id})
  RETURN sum(COUNT { (m)<-[:IN]-() }) AS in_scope, collect([m.id, coalesce(m.records_version, 0)]) AS versions
}
CALL () {
  MATCH (r:Record)
  RETURN count(r) AS total
}
RETURN in_scope, total, versions
