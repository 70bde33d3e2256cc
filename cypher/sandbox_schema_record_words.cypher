// Query sandbox only, applied once to the pristine template: a full-text index on the words of the
// copy's records. It ranks within the copy alone (the caller's scope), so callers may use it through
// db.index.fulltext.queryNodes('record_words', ...). Idempotent. Parameters: none.
CREATE FULLTEXT INDEX record_words IF NOT EXISTS FOR (r:Record) ON EACH [r.title, r.text]
