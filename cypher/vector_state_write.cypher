// Records the vector slots (the model-move command only). Parameters: $active, $model_embedding,
// $model_embedding_b (model name or null: the slot is not live), $filling (slot or null), $now (int ms).
// Columns: active.
MERGE (s:VectorState {id: 'slots'})
SET s.active = $active, s.model_embedding = $model_embedding, s.model_embedding_b = $model_embedding_b,
    s.filling = $filling, s.changed_at = $now
RETURN s.active AS active
