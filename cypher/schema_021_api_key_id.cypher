// Schema: an API key is named by its id (hkey_…) when an operator lists, revokes or rotates it, and
// the id is unique. Idempotent. Parameters: none.
CREATE CONSTRAINT api_key_id IF NOT EXISTS FOR (k:ApiKey) REQUIRE k.id IS UNIQUE
