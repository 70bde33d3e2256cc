// Schema: files by owner, so an upload counts its owner's files and bytes without a scan.
// Idempotent. Parameters: none.
CREATE INDEX file_owner IF NOT EXISTS FOR (f:File) ON (f.owner)
