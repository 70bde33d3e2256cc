"""`python -m provider migrate`: another memory system's data read at the CLI's edge, written as records."""
