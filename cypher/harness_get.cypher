// Reads a harness's memory settings. Parameters: $id.
// Columns: id, name, member_id, default_memory_id, observe. No row when unknown.
MATCH (h:Harness {id: $id})
RETURN h.id AS id, h.name AS name, h.member_id AS member_id, h.default_memory_id AS default_memory_id,
       coalesce(h.observe, true) AS observe
