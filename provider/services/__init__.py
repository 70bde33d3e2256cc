"""The services, one package per capability; each authorizes first (through access), then acts.

Layered, each importing only those below it (an import contract): `lifecycle`, then `recall` and
`queries`, then `records`, then `tree`, then the leaves `types` (the catalogue) and `schemas`.
"""
