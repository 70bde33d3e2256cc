package uhp.sandbox;

import java.util.Map;

/**
 * The service's settings, from its environment (documented in docs/QUERIES.md, "Settings"): the
 * memory it declares, what one scope may use of it, and how many statements run at once.
 */
record Limits(
        String bind,
        int port,
        String token,
        int memoryMb,
        int scopeMb,
        int pageCacheMb,
        int transactionMb,
        int threads,
        int scopeStatements,
        long graceMs,
        long maxBodyBytes,
        long valueBytes,
        long answerBytes,
        int heapPressurePercent) {

    static Limits fromEnvironment(Map<String, String> env) {
        String token = env.getOrDefault("UHP_SANDBOX_TOKEN", "");
        if (token.length() < 16) {
            throw new IllegalArgumentException("UHP_SANDBOX_TOKEN must be set (16 characters or more)");
        }
        return new Limits(
                env.getOrDefault("UHP_SANDBOX_BIND", "127.0.0.1"),
                number(env, "UHP_SANDBOX_PORT", 7688),
                token,
                number(env, "UHP_SANDBOX_MEMORY_MB", 1024),
                number(env, "UHP_SANDBOX_SCOPE_MB", 160),
                number(env, "UHP_SANDBOX_SCOPE_PAGECACHE_MB", 16),
                number(env, "UHP_SANDBOX_SCOPE_TRANSACTION_MB", 96),
                number(env, "UHP_SANDBOX_THREADS", 16),
                number(env, "UHP_SANDBOX_SCOPE_STATEMENTS", 2),
                number(env, "UHP_SANDBOX_GRACE_MS", 3000),
                number(env, "UHP_SANDBOX_MAX_BODY_MB", 512) * 1024L * 1024L,
                number(env, "UHP_SANDBOX_SCOPE_VALUE_MB", 64) * 1024L * 1024L,
                number(env, "UHP_SANDBOX_ANSWER_MAX_BYTES", 16 * 1024 * 1024),
                number(env, "UHP_SANDBOX_HEAP_PRESSURE_PERCENT", 60));
    }

    /**
     * Scopes held at once: the declared memory (the heap), less one share for the service itself,
     * per scope. A scope's share covers its transactions (all together at most `transactionMb`) and
     * its database's own structures; its page cache is off the heap, `pageCacheMb` more each.
     */
    int scopes() {
        return Math.max(1, memoryMb / scopeMb - 1);
    }

    /** Whether a standby database is kept: when the memory holds two shares or more besides it. */
    boolean standby() {
        return scopes() >= 3;
    }

    /** Scopes held at once: the shares, less the standby's. */
    int held() {
        return standby() ? scopes() - 1 : scopes();
    }

    /** Every scope's database: no network, no files to read, no query log, bounded memory and time. */
    String neo4jConf() {
        return String.join(
                "\n",
                "server.bolt.enabled=false",
                "server.http.enabled=false",
                "server.https.enabled=false",
                "dbms.security.allow_csv_import_from_file_urls=false",
                // Cypher reaches no address at all (LOAD CSV, procedures that fetch): the engine's own
                // block, beneath the statement gate that refuses LOAD CSV by name.
                "internal.dbms.cypher_ip_blocklist=0.0.0.0/0,::/0",
                "server.memory.pagecache.size=" + pageCacheMb + "m",
                "db.memory.transaction.max=" + transactionMb + "m",
                // All of a scope's statements together: its share of the heap is bounded, however many run.
                "db.memory.transaction.total.max=" + transactionMb + "m",
                "db.transaction.timeout=120s",
                "db.logs.query.enabled=OFF",
                "db.tx_log.preallocate=false",
                "db.tx_log.rotation.size=1m",
                "");
    }

    private static int number(Map<String, String> env, String name, int otherwise) {
        String value = env.get(name);
        return value == null || value.isBlank() ? otherwise : Integer.parseInt(value.trim());
    }
}
