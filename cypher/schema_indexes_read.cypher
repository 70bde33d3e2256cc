// Reads the vector index's configured dimension, to check it against the embedder at start-up.
// Parameters: none. Columns: name, dimensions (int or null), state.
SHOW INDEXES YIELD name, type, options, state
WHERE name IN ['record_embedding', 'record_embedding_b', 'record_words']
RETURN name, type, options.indexConfig['vector.dimensions'] AS dimensions, state
