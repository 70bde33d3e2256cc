// Schema: the full-text index over the words of current, active records: title, text parts and
// file parts' words, plus the memory id so a Lucene query can carry the scope as a clause.
// Idempotent. Parameters: none.
CREATE FULLTEXT INDEX record_words IF NOT EXISTS
FOR (r:Record) ON EACH [r.search_title, r.search_text, r.search_memory]
