// One run of a memory. Parameters: $memory_id, $id. Columns: run (property map). No row when unknown.
MATCH (c:Consolidation {id: $id, memory_id: $memory_id})
RETURN properties(c) AS run
