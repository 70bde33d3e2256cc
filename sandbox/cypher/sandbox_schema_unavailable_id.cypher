// Query sandbox only, applied once to the pristine template: a range index on Unavailable.id.
// Idempotent. Parameters: none.
CREATE INDEX sandbox_unavailable_id IF NOT EXISTS FOR (u:Unavailable) ON (u.id)
