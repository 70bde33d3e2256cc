// How many records the scope holds, and how many the whole store holds, to choose exact similarity
// or an index search per request. in_scope is the memories' IN degree (records of any status, plus
// the odd snapshot or named query): an upper bound read from the degree store in O(memories),
// where counting embedded records touched every record of the scope (~50 ms at 100,000). A high
// estimate only sends a search to the index, whose over-fetch loop and exact fallback still hold.
// Parameters: $scope (list of memory ids the access module judged readable).
// Columns: in_scope (int), total (int). Scope: counts only the memories in $scope.
CALL () {
  UNWIND $scope AS memory_id
  MATCH (m:Memory {id: memory_id})
  RETURN sum(COUNT { (m)<-[:IN]-() }) AS in_scope
}
CALL () {
  MATCH (r:Record)
  RETURN count(r) AS total
}
RETURN in_scope, total
