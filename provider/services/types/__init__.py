"""Record types: the core types, and those this provider adds (`x.person`, `x.company`).

Each added type has an attribute schema, a text projection and operations.
`catalog` holds the definitions, `attributes` checks records against them (in worker processes),
`names` is how people and companies are recognised by their names, `merge` folds a duplicate into
a record, and `service` answers the type listing and runs operations. Nothing is imported here, so
the record service can use `attributes` without pulling in the operations that use records.
"""
