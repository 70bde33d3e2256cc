// Schema (data): files uploaded before names were marked become :Unnamed, so the orphan sweep looks
// at them once; it checks every record version before reclaiming and marks those it finds named.
// Idempotent (only files never marked either way are touched). Parameters: none.
// Columns: marked (int).
MATCH (f:File)
WHERE f.named_at IS NULL AND NOT f:Unnamed
SET f:Unnamed
RETURN count(f) AS marked
