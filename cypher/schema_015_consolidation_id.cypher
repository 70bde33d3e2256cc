// Schema: consolidation run ids are unique. Idempotent. Parameters: none.
CREATE CONSTRAINT consolidation_id IF NOT EXISTS FOR (c:Consolidation) REQUIRE c.id IS UNIQUE
