// Schema: memory ids are unique. Idempotent. Parameters: none.
CREATE CONSTRAINT memory_id IF NOT EXISTS FOR (m:Memory) REQUIRE m.id IS UNIQUE
