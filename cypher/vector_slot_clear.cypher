// Removes one slot's vectors from a batch of records and versions (a retired model's, or what an
// interrupted move left in the slot it now fills again). Parameters: $slot, $limit (int).
// Columns: cleared (int; 0 when none is left).
MATCH (n)
WHERE (n:Record OR n:RecordVersion) AND n[$slot] IS NOT NULL
WITH n LIMIT $limit
REMOVE n[$slot]
RETURN count(n) AS cleared
