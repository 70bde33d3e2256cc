// Schema: one explicit grant per principal per memory. grant_put MERGEs on the slot, so two grants
// given at once for the same principal meet on this constraint's index and one replaces the other.
// Idempotent. Parameters: none.
CREATE CONSTRAINT grant_slot IF NOT EXISTS FOR (g:Grant) REQUIRE g.slot IS UNIQUE
