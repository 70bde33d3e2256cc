"""Wire models: the chapter's JSON, and conversion between it and domain types."""
