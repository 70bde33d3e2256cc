// Schema: grants are looked up by principal when listing where a caller enters the tree.
// Idempotent. Parameters: none.
CREATE INDEX grant_principal IF NOT EXISTS FOR (g:Grant) ON (g.principal)
