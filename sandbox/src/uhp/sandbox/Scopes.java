package uhp.sandbox;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.graphdb.Transaction;

/**
 * The scopes held, each its own database service; at most `limits.held()` at once (the memory the
 * service declares divided by what one scope may use, less a standby's share), the least recently
 * used shut down first. A standby database waits on the template so a new copy need not wait for a
 * database to start (about a second on a warm JVM, several on a busy machine).
 */
final class Scopes {
    private final Path work;
    private final Path kept;
    private final Limits limits;
    private final Map<String, Scope> held = new ConcurrentHashMap<>();
    private final Map<String, Object> loading = new ConcurrentHashMap<>();
    private final Map<String, Path> templates = new ConcurrentHashMap<>();
    private final AtomicLong made = new AtomicLong();
    private final Path conf;
    private final ExecutorService starter = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "uhp-standby");
        t.setDaemon(true);
        return t;
    });
    private Future<Scope> standby;
    private Path standbyTemplate;

    Scopes(Path work, Path kept, Limits limits) throws IOException {
        this.work = work;
        this.kept = kept;
        this.limits = limits;
        Files.createDirectories(work.resolve("scopes"));
        this.conf = work.resolve("neo4j.conf");
        Files.writeString(conf, limits.neo4jConf());
    }

    int size() {
        return held.size();
    }

    /** The scope held under `key`, acquired (release it), or null. */
    Scope get(String key) {
        Scope scope = held.get(key);
        if (scope == null || !scope.acquire()) {
            return null;
        }
        scope.usedAt = System.nanoTime();
        return scope;
    }

    /** Whether a load is needed: false when the key is held already (another caller loaded it). */
    boolean absent(String key) {
        return !held.containsKey(key);
    }

    /** A new scope on the template for `schema`, loaded by `load`, then held under `key`. */
    void put(String key, List<String> schema, String version, Loader load) throws Exception {
        Object lock = loading.computeIfAbsent(key, k -> new Object());
        try {
            synchronized (lock) {
                if (held.containsKey(key)) {
                    return;
                }
                Path template = template(schema);
                makeRoom();
                Scope scope = fresh(template);
                scope.key = key;
                try {
                    load.into(scope);
                    scope.loaded(version);
                } catch (Exception | Error e) {
                    scope.retire();
                    throw e;
                }
                held.put(key, scope);
            }
        } finally {
            loading.remove(key);
        }
    }

    /**
     * A database just started on the template and never used: the standby when there is one for this
     * template (started in the background after the last was taken), else one started now. A standby
     * only waits; nothing reaches it before it is taken, so it is as pristine as one started now.
     */
    private Scope fresh(Path template) throws Exception {
        Future<Scope> ready = null;
        synchronized (this) {
            if (template.equals(standbyTemplate)) {
                ready = standby;
            }
            standby = null;
            standbyTemplate = null;
        }
        Scope scope = null;
        if (ready != null) {
            try {
                scope = ready.get();
            } catch (ExecutionException e) {
                // The standby failed to start: start one now, and let that one's failure speak.
            }
        }
        if (scope == null) {
            scope = open(template);
        }
        // The next standby starts once this scope has, not beside it: on a cold service two database
        // starts at once would share the cores and make the first caller wait for both.
        synchronized (this) {
            if (limits.standby() && standby == null) {
                standbyTemplate = template;
                standby = starter.submit(() -> open(template));
            }
        }
        return scope;
    }

    private Scope open(Path template) throws IOException {
        Path home = work.resolve("scopes").resolve(Long.toString(made.incrementAndGet()));
        return Scope.open(home, template, conf, limits.scopeStatements());
    }

    /** Forgets a scope; it shuts down when no statement uses it any more. */
    boolean delete(String key) {
        Scope scope = held.remove(key);
        if (scope != null) {
            scope.retire();
        }
        return scope != null;
    }

    void deleteAll() {
        held.keySet().forEach(this::delete);
    }

    private synchronized void makeRoom() {
        while (held.size() >= limits.held()) {
            held.values().stream()
                    .min((a, b) -> Long.compare(a.usedAt, b.usedAt))
                    .ifPresent(oldest -> delete(oldest.key));
        }
    }

    /**
     * A stopped store with the schema and nothing else, built once per schema: every scope's start.
     * It is kept beside the work directory (in `templates`), so a service started again after a
     * crash reuses it instead of spending most of its first load building it again. It is built under
     * a name of its own and renamed into place whole, so a half-built one is never used.
     */
    private Path template(List<String> schema) throws IOException {
        String name = digest(org.neo4j.kernel.internal.Version.getNeo4jVersion() + "\n" + String.join("\n;\n", schema));
        Path ready = templates.get(name);
        if (ready != null) {
            return ready;
        }
        synchronized (templates) {
            ready = templates.get(name);
            if (ready != null) {
                return ready;
            }
            Path home = kept.resolve("template-" + name);
            if (!Files.isRegularFile(home.resolve(".complete"))) {
                build(schema, home);
            }
            templates.put(name, home);
            return home;
        }
    }

    private void build(List<String> schema, Path home) throws IOException {
        Files.createDirectories(kept);
        Path building = Files.createTempDirectory(kept, "building-");
        DatabaseManagementService service = Scope.openTemplate(building, conf);
        try {
            var db = service.database(Scope.DATABASE);
            for (String statement : schema) {
                try (Transaction tx = db.beginTx()) {
                    tx.execute(statement).close();
                    tx.commit();
                }
            }
            try (Transaction tx = db.beginTx()) {
                tx.schema().awaitIndexesOnline(120, TimeUnit.SECONDS);
            }
        } finally {
            service.shutdown();
        }
        // Logs are the template's own history, not store: a scope starts with none.
        Scope.deleteTree(building.resolve("logs"));
        Files.writeString(building.resolve(".complete"), "ok\n");
        try {
            Files.move(building, home, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            // Another service built the same template first: its copy is the same; use it.
            Scope.deleteTree(building);
            if (!Files.isRegularFile(home.resolve(".complete"))) {
                throw e;
            }
        }
    }

    private static String digest(String text) {
        try {
            byte[] hash = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(hash, 0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Writes a scope's copy into its new database. */
    interface Loader {
        void into(Scope scope) throws Exception;
    }
}
