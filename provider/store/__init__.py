"""The only package that talks to Neo4j."""
