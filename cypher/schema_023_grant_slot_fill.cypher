// Schema (data, before schema_024's constraint): every explicit grant gets its slot, "<memory id>
// <principal>", which that constraint keeps unique, so a principal holds one grant per memory.
// Grants kept before the constraint may hold two for one principal on one memory (two requests that
// raced); they fold into the oldest, with the union of their privileges, so what anyone may reach does
// not change with the upgrade. The creator's implicit grant has no slot and is left alone.
// Idempotent (only memories with an explicit grant lacking a slot are touched). Parameters: none.
// Columns: folded (int: grants that received a slot).
MATCH (loose:Grant)-[:ON]->(m:Memory)
WHERE loose.slot IS NULL AND NOT coalesce(loose.implicit, false)
WITH DISTINCT m, loose.principal AS principal
MATCH (g:Grant {principal: principal})-[:ON]->(m)
WHERE NOT coalesce(g.implicit, false)
WITH m, principal, g
ORDER BY g.slot IS NULL, g.created_at, g.id
WITH m, principal, collect(g) AS grants
WITH m, principal, head(grants) AS kept, tail(grants) AS extra,
     reduce(acc = [], g IN grants | acc + [p IN g.privileges WHERE NOT p IN acc]) AS held
SET kept.slot = m.id + ' ' + principal,
    kept.privileges = [p IN ['read', 'write', 'create', 'delete'] WHERE p IN held]
FOREACH (g IN extra | DETACH DELETE g)
RETURN count(kept) AS folded
