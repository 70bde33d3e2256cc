// Schema: an API key is found by its hash, which is unique. Idempotent. Parameters: none.
CREATE CONSTRAINT api_key_hash IF NOT EXISTS FOR (k:ApiKey) REQUIRE k.hash IS UNIQUE
