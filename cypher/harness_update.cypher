// Sets a harness's default memory and observe flag.
// Parameters: $id, $default_memory_id (string or null), $observe (bool). Columns: id.
// Scope: the service has checked the agent may write the default memory.
MATCH (h:Harness {id: $id})
SET h.default_memory_id = $default_memory_id, h.observe = $observe
RETURN h.id AS id
