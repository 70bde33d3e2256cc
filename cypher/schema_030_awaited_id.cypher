// Schema: one Awaited node per record id that a reference names before the record exists, so the
// record's arrival finds every referrer waiting for it in one seek, and two writers naming the same
// absent id meet on one node (the constraint's lock orders them). Idempotent. Parameters: none.
CREATE CONSTRAINT awaited_id IF NOT EXISTS FOR (w:Awaited) REQUIRE w.id IS UNIQUE
