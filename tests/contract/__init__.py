"""Scenarios run on a port's in-memory fake and on its Neo4j store alike, so the fake cannot drift."""
