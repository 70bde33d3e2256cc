package uhp.sandbox;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.dbms.api.DatabaseManagementServiceBuilder;
import org.neo4j.graphdb.ExecutionPlanDescription;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.graphdb.Result;
import org.neo4j.graphdb.Transaction;
import org.neo4j.internal.kernel.api.connectioninfo.ClientConnectionInfo;
import org.neo4j.internal.kernel.api.security.AccessMode;
import org.neo4j.internal.kernel.api.security.SecurityContext;
import org.neo4j.kernel.api.KernelTransaction;
import org.neo4j.kernel.impl.coreapi.InternalTransaction;
import org.neo4j.kernel.internal.GraphDatabaseAPI;

/**
 * One scope version: its own embedded database service in its own directory, started from a byte
 * copy of the template, so nothing of any other scope (ids, tokens, counters, plans) is in it.
 */
final class Scope {
    static final String DATABASE = "neo4j";
    private static final SecurityContext READ =
            SecurityContext.authDisabled(AccessMode.Static.READ, ClientConnectionInfo.EMBEDDED_CONNECTION, DATABASE);

    volatile String key; // set when the scope is taken for a copy (a standby has none yet)
    // The data version the copy holds, as the API named it (opaque here); changed only by apply.
    private String version = "";
    final Path home;
    private final DatabaseManagementService service;
    private final GraphDatabaseAPI db;
    private final Semaphore running;
    private final AtomicInteger users = new AtomicInteger(1);
    private volatile boolean retired;
    volatile long usedAt = System.nanoTime();

    private Scope(Path home, DatabaseManagementService service, int statements) {
        this.home = home;
        this.service = service;
        this.db = (GraphDatabaseAPI) service.database(DATABASE);
        this.running = new Semaphore(statements, true);
    }

    /** A database service on a copy of the template, with the scope's own configuration file. */
    static Scope open(Path home, Path template, Path conf, int statements) throws IOException {
        Files.createDirectories(home);
        copyTree(template, home);
        DatabaseManagementService service = new DatabaseManagementServiceBuilder(home)
                .loadPropertiesFromFile(conf)
                .build();
        return new Scope(home, service, statements);
    }

    static DatabaseManagementService openTemplate(Path home, Path conf) {
        return new DatabaseManagementServiceBuilder(home).loadPropertiesFromFile(conf).build();
    }

    /** The load: each step a write transaction of its own, committed, in the order given. */
    void write(String statement, Map<String, Object> params) {
        try (Transaction tx = db.beginTx()) {
            exhaust(tx.execute(statement, params));
            tx.commit();
        }
    }

    /** Runs a statement to its end: a procedure that yields nothing (the full-text refresh) runs only when read. */
    private static void exhaust(Result result) {
        try (result) {
            while (result.hasNext()) {
                result.next();
            }
        }
    }

    synchronized String version() {
        return version;
    }

    synchronized void loaded(String version) {
        this.version = version;
    }

    /**
     * Brings the copy from version `from` to `to`: every step in ONE write transaction, so a statement
     * sees the copy before or after, never half; then the full-text index is brought level. Refused
     * (false, nothing written) when the copy no longer holds `from` (another caller moved it on).
     */
    synchronized boolean apply(String from, String to, List<Map<String, Object>> steps, String refresh) {
        if (!version.equals(from)) {
            return false;
        }
        try (Transaction tx = db.beginTx()) {
            for (Map<String, Object> step : steps) {
                exhaust(tx.execute(String.valueOf(step.get("statement")), Values.params(step.get("params"))));
            }
            tx.commit();
        }
        version = to;
        write(refresh, Map.of());
        return true;
    }

    GraphDatabaseService database() {
        return db;
    }

    /** Neo4j's own parse and plan of the statement, in a read transaction that executes nothing. */
    Map<String, Object> explain(String statement, Map<String, Object> params, long timeoutMs) {
        try (InternalTransaction tx = readTransaction(timeoutMs)) {
            try (Result result = tx.execute("EXPLAIN " + statement, params)) {
                Map<String, Object> out = new LinkedHashMap<>();
                out.put("query_type", queryType(result));
                List<List<String>> operators = new ArrayList<>();
                operators(result.getExecutionPlanDescription(), operators);
                out.put("operators", operators);
                return out;
            }
        }
    }

    /**
     * The caller's statement in a READ transaction with its time limit: `rowCap` rows kept at most,
     * and rows kept only while their converted values fit `budget`; the row that would pass it is
     * dropped whole and the answer says which bound cut it (`cut`).
     */
    Map<String, Object> run(
            String statement, Map<String, Object> params, long timeoutMs, int rowCap, Budget budget, Running job) {
        try (InternalTransaction tx = readTransaction(timeoutMs)) {
            job.transaction = tx;
            try (Result result = tx.execute(statement, params)) {
                List<String> columns = result.columns();
                List<Object> rows = new ArrayList<>();
                List<String> ids = new ArrayList<>();
                boolean allRecords = true;
                boolean capped = false;
                String cut = null;
                while (result.hasNext()) {
                    Map<String, Object> row = result.next();
                    if (rows.size() == rowCap) {
                        capped = true;
                        break;
                    }
                    List<Object> values = new ArrayList<>(columns.size());
                    List<String> rowIds = new ArrayList<>(columns.size());
                    try {
                        for (String column : columns) {
                            Object value = row.get(column);
                            rowIds.add(Values.recordId(value));
                            values.add(Values.plain(value, budget));
                        }
                    } catch (Budget.Exceeded e) {
                        cut = e.bound;
                        break;
                    }
                    for (String id : rowIds) {
                        allRecords &= id != null;
                    }
                    ids.addAll(rowIds);
                    rows.add(values);
                }
                Map<String, Object> out = new LinkedHashMap<>();
                out.put("columns", columns);
                out.put("rows", rows);
                out.put("record_ids", allRecords && !ids.isEmpty() ? ids : null);
                out.put("capped", capped);
                out.put("cut", cut);
                return out;
            }
        }
    }

    private InternalTransaction readTransaction(long timeoutMs) {
        return db.beginTransaction(
                KernelTransaction.Type.EXPLICIT,
                READ,
                ClientConnectionInfo.EMBEDDED_CONNECTION,
                timeoutMs,
                TimeUnit.MILLISECONDS);
    }

    private static String queryType(Result result) {
        return switch (result.getQueryExecutionType().queryType()) {
            case READ_ONLY -> "r";
            case READ_WRITE -> "rw";
            case WRITE -> "w";
            case SCHEMA_WRITE -> "s";
            default -> "dbms";
        };
    }

    private static void operators(ExecutionPlanDescription plan, List<List<String>> into) {
        Object details = plan.getArguments().get("Details");
        into.add(List.of(plan.getName().split("@")[0], details == null ? "" : String.valueOf(details)));
        for (ExecutionPlanDescription child : plan.getChildren()) {
            operators(child, into);
        }
    }

    /** A statement slot of this scope; false when the scope has as many running as it allows. */
    boolean enter(long waitMs) throws InterruptedException {
        return running.tryAcquire(waitMs, TimeUnit.MILLISECONDS);
    }

    void leave() {
        running.release();
    }

    /** Whether the scope may still be used (false once retired); each true must be matched by release. */
    boolean acquire() {
        users.incrementAndGet();
        if (retired) {
            release();
            return false;
        }
        return true;
    }

    /** Retired scopes shut down when their last user leaves. */
    void release() {
        if (users.decrementAndGet() == 0) {
            close();
        }
    }

    void retire() {
        if (!retired) {
            retired = true;
            release();
        }
    }

    private void close() {
        try {
            service.shutdown();
        } finally {
            deleteTree(home);
        }
    }

    static void copyTree(Path from, Path to) throws IOException {
        try (var paths = Files.walk(from)) {
            for (Path source : (Iterable<Path>) paths::iterator) {
                Path target = to.resolve(from.relativize(source).toString());
                if (Files.isDirectory(source)) {
                    Files.createDirectories(target);
                } else if (!source.getFileName().toString().endsWith(".lock")) {
                    Files.copy(source, target);
                }
            }
        }
    }

    static void deleteTree(Path root) {
        if (!Files.exists(root)) {
            return;
        }
        try (var paths = Files.walk(root)) {
            paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // Best effort: the service's work directory is removed as a whole when it stops.
        }
    }

    /** What a running statement exposes so a stuck one can be cut. */
    static final class Running {
        volatile InternalTransaction transaction;
        volatile Thread thread;
        volatile long allocatedAtStart;
        volatile boolean overBudget; // the watchdog stopped it: it built more than a statement may
    }
}
