// Schema: grant ids are unique. Idempotent. Parameters: none.
CREATE CONSTRAINT grant_id IF NOT EXISTS FOR (g:Grant) REQUIRE g.id IS UNIQUE
