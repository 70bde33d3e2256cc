// Schema: member ids are unique. Idempotent. Parameters: none.
CREATE CONSTRAINT member_id IF NOT EXISTS FOR (m:Member) REQUIRE m.id IS UNIQUE
