// How many records and versions hold the $source slot's vector but not the $target slot's: zero
// means a move to the target's model may switch. Parameters: $source, $target. Columns: missing (int).
CALL () {
  MATCH (r:Record) WHERE r[$source] IS NOT NULL AND r[$target] IS NULL
  RETURN count(r) AS records
}
CALL () {
  MATCH (v:RecordVersion) WHERE v[$source] IS NOT NULL AND v[$target] IS NULL
  RETURN count(v) AS versions
}
RETURN records + versions AS missing
