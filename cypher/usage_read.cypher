// What one principal keeps, as its Usage node counts it (zeros before its first write).
// Parameters: $principal. Columns: records, content_bytes, memories.
OPTIONAL MATCH (u:Usage {principal: $principal})
RETURN coalesce(u.records, 0) AS records, coalesce(u.content_bytes, 0) AS content_bytes,
       coalesce(u.memories, 0) AS memories
