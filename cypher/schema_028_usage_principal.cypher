// Schema: one Usage node per principal, the counters its quotas read (usage_charge MERGEs on it and
// locks it, so one principal's writes are counted one after the other). Idempotent. Parameters: none.
CREATE CONSTRAINT usage_principal IF NOT EXISTS FOR (u:Usage) REQUIRE u.principal IS UNIQUE
