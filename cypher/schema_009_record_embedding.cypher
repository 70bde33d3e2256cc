// Schema: the vector index over the embeddings of current, active records only (superseded and
// forgotten versions never carry `embedding` on the Record node, so they never crowd the index).
// Idempotent. Parameters: $dimensions (int, the embedder's dimension).
CREATE VECTOR INDEX record_embedding IF NOT EXISTS
FOR (r:Record) ON (r.embedding)
OPTIONS {indexConfig: {`vector.dimensions`: $dimensions, `vector.similarity_function`: 'cosine'}}
