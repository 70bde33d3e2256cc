// What a run did, in order. Parameters: $run_id. Columns: record_id, action, before, after, seq.
MATCH (x:ConsolidationChange {run_id: $run_id})
RETURN x.record_id AS record_id, x.action AS action, x.before AS before, x.after AS after, x.seq AS seq
ORDER BY x.seq
