// Marks a run as reverted by another. Parameters: $id, $reverted_by. Columns: id.
MATCH (c:Consolidation {id: $id})
SET c.reverted_by = $reverted_by
RETURN c.id AS id
