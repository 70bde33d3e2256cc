"""Development tools: a local Neo4j and a local query sandbox service, for `scripts/serve` and the tests.

The service itself (`provider`) knows Neo4j by a URI and the sandbox by a URL and a token; nothing in
it starts either. These launchers live here so that `provider/store` is Neo4j access only.
"""
