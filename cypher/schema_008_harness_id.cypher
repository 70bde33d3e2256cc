// Schema: harness ids are unique. Idempotent. Parameters: none.
CREATE CONSTRAINT harness_id IF NOT EXISTS FOR (h:Harness) REQUIRE h.id IS UNIQUE
