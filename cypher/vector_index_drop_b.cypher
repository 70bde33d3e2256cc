// Drops the second slot's vector index once its model is retired. Parameters: none.
DROP INDEX record_embedding_b IF EXISTS
