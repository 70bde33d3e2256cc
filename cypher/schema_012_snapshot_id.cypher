// Schema: snapshot ids are unique. Idempotent. Parameters: none.
CREATE CONSTRAINT snapshot_id IF NOT EXISTS FOR (s:Snapshot) REQUIRE s.id IS UNIQUE
