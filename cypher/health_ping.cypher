// Liveness probe for /readyz.
// Parameters: none. Columns: ok (1). Scope: touches no data.
RETURN 1 AS ok
