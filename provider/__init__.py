"""uhp-memory: the UHP Memories chapter (2026-10-04) kept in Neo4j."""

__version__ = "0.1.0"
PROTOCOL_VERSION = "2026-10-04"
