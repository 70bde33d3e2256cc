"""One module per capability: authorize first, then act."""
