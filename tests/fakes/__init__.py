"""In-memory fakes of our own ports, for the fast tier; tests/contract pins each to the real store."""
