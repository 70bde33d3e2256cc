// The data version of a readable scope, memory by memory: change_seq (raised by every write that
// changes a record the copy holds, stamped on that record), copy_epoch (raised by what a copy must
// never be brought past: an erase, a delete that took referenced records), updated_at (a rename or
// a move), and the memory's IN degree (records, plus the odd snapshot or named query: an upper
// bound for the cap, from the degree store). O(memories), whatever the scope holds.
// Parameters: $scope (list of memory ids the access module judged readable).
// Columns: id, seq, epoch, updated_at, records; one row per memory of $scope that exists, by id.
// Scope: reads only the memories in $scope; nothing outside it is counted.
UNWIND $scope AS scoped
MATCH (m:Memory {id: scoped})
RETURN m.id AS id, coalesce(m.change_seq, 0) AS seq, coalesce(m.copy_epoch, 0) AS epoch,
       coalesce(m.updated_at, 0) AS updated_at, COUNT { (m)<-[:IN]-() } AS records
ORDER BY id
