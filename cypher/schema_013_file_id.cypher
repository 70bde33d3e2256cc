// Schema: file ids are unique. Idempotent. Parameters: none.
CREATE CONSTRAINT file_id IF NOT EXISTS FOR (f:File) REQUIRE f.id IS UNIQUE
