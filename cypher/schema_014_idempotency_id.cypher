// Schema: one idempotency key per caller and key string. Idempotent. Parameters: none.
CREATE CONSTRAINT idempotency_id IF NOT EXISTS FOR (k:IdempotencyKey) REQUIRE k.id IS UNIQUE
