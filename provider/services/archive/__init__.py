"""Export and restore of a memory subtree as one portable tar (docs/EXPORT.md)."""
