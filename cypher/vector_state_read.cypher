// The database's vector slots: which one recall reads, each live slot's model, the one being filled.
// Parameters: none. Columns: active, model_embedding, model_embedding_b, filling; no row before the
// first move to another model (the configured model then fills `embedding`).
MATCH (s:VectorState {id: 'slots'})
RETURN s.active AS active, s.model_embedding AS model_embedding, s.model_embedding_b AS model_embedding_b,
       s.filling AS filling
