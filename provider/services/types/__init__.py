"""Record types: the core types, and those this provider adds (`x.person`, `x.company`).

A pure leaf: `catalog` holds the definitions (attribute schema, text projection, operations) and
`names` is how people and companies are recognised by their names. Checking a record against its
type is `records.attributes`; running an operation (merge) is `lifecycle.type_operations`.
"""
