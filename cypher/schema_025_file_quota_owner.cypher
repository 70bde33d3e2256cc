// Schema: one FileQuota node per owner. file_create MERGEs on it and writes it, so two uploads of
// one owner meet on this constraint and on the node's lock, and are counted one after the other.
// Idempotent. Parameters: none.
CREATE CONSTRAINT file_quota_owner IF NOT EXISTS FOR (q:FileQuota) REQUIRE q.owner IS UNIQUE
