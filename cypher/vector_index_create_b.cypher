// The vector index over the second slot, `embedding_b`, for a move to another model; idempotent.
// Parameters: $dimensions (int, the target model's dimension).
CREATE VECTOR INDEX record_embedding_b IF NOT EXISTS
FOR (r:Record) ON (r.embedding_b)
OPTIONS {indexConfig: {`vector.dimensions`: $dimensions, `vector.similarity_function`: 'cosine'}}
