// Schema: a record's id is stable across versions and unique. Idempotent. Parameters: none.
CREATE CONSTRAINT record_id IF NOT EXISTS FOR (r:Record) REQUIRE r.id IS UNIQUE
