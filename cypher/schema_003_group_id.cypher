// Schema: group ids are unique. Idempotent. Parameters: none.
CREATE CONSTRAINT group_id IF NOT EXISTS FOR (g:Group) REQUIRE g.id IS UNIQUE
