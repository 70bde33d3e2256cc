package uhp.sandbox;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.neo4j.kernel.api.exceptions.Status;

/**
 * The query sandbox service: scopes' copies in embedded Neo4j, statements run on them, over HTTP.
 *
 * PUT /scopes/{key} loads a copy (the API read it from the main database; this process holds no
 * credential of it), POST /scopes/{key}/explain and /run answer a statement, DELETE forgets a
 * scope, GET /health says what the service declares and holds. Every request carries the bearer
 * token the starter gave both sides. Statements run on their own threads, so a slow one holds up
 * only its own scope's slot.
 */
public final class SandboxMain {
    private static final ObjectMapper JSON =
            new ObjectMapper().enable(DeserializationFeature.USE_BIG_INTEGER_FOR_INTS);
    private final Limits limits;
    private final Scopes scopes;
    private final Watchdog watchdog;
    private final byte[] expected;
    private final ExecutorService statements = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "uhp-statement");
        t.setDaemon(true);
        return t;
    });

    private SandboxMain(Limits limits, Scopes scopes) {
        this.limits = limits;
        this.scopes = scopes;
        this.watchdog = new Watchdog(limits.heapPressurePercent());
        this.expected = ("Bearer " + limits.token()).getBytes(StandardCharsets.UTF_8);
    }

    public static void main(String[] args) throws Exception {
        // Answers leave at once: without it, a response written in two segments waits for the
        // client's delayed ACK (~40 ms on Linux), which doubled a repeated query's latency.
        System.setProperty("sun.net.httpserver.nodelay", "true");
        // A statement that outgrows the heap fails alone (its thread's error is its answer); the heap
        // running out anywhere else leaves a service in an unknown state, so it ends and its
        // supervisor (compose, scripts/serve, the API's pool) starts a fresh one.
        Thread.setDefaultUncaughtExceptionHandler((thread, error) -> {
            if (error instanceof OutOfMemoryError) {
                System.err.println("sandbox: out of memory outside a statement; ending");
                Runtime.getRuntime().halt(3);
            }
        });
        Limits limits = Limits.fromEnvironment(System.getenv());
        Path base = Path.of(System.getenv().getOrDefault("UHP_SANDBOX_WORK_DIR", System.getProperty("java.io.tmpdir")));
        Path work = Files.createTempDirectory(base, "uhp-sandbox-");
        Runtime.getRuntime().addShutdownHook(new Thread(() -> Scope.deleteTree(work)));
        // Empty stores with the schema: kept across starts (they hold no data), one per schema.
        Path kept = base.resolve("uhp-sandbox-templates");
        SandboxMain main = new SandboxMain(limits, new Scopes(work, kept, limits));
        HttpServer server = HttpServer.create(new InetSocketAddress(limits.bind(), limits.port()), 64);
        server.createContext("/", main::handle);
        server.setExecutor(Executors.newFixedThreadPool(limits.threads()));
        server.start();
        // The starter reads this line for the port (0 asks for any free one).
        System.out.println("{\"ready\": true, \"port\": " + server.getAddress().getPort() + "}");
        System.out.flush();
        if (args.length > 0 && args[0].equals("--stdin")) {
            // Started by a process that owns it: gone when that process is.
            while (System.in.read() >= 0) {
                // nothing: only the end of stdin matters
            }
            Runtime.getRuntime().exit(0);
        }
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            guarded(exchange);
        }
    }

    private void guarded(HttpExchange exchange) throws IOException {
        try {
            String auth = exchange.getRequestHeaders().getFirst("Authorization");
            if (auth == null || !MessageDigest.isEqual(expected, auth.getBytes(StandardCharsets.UTF_8))) {
                send(exchange, 401, Map.of("error", "unauthorized"));
                return;
            }
            route(exchange);
        } catch (Exception | Error e) {
            // The class and status only: a database message can quote the data.
            System.err.println("sandbox: " + e.getClass().getName() + " " + Failure.of(e).code());
            send(exchange, 500, Map.of("error", "internal", "failure", Failure.of(e).json()));
        }
    }

    private void route(HttpExchange exchange) throws Exception {
        String method = exchange.getRequestMethod();
        String[] parts = exchange.getRequestURI().getPath().split("/");
        if (parts.length == 2 && parts[1].equals("health") && method.equals("GET")) {
            send(exchange, 200, health());
        } else if (parts.length == 2 && parts[1].equals("scopes") && method.equals("DELETE")) {
            scopes.deleteAll();
            send(exchange, 200, Map.of("deleted", true));
        } else if (parts.length == 3 && parts[1].equals("scopes")) {
            scope(exchange, method, parts[2]);
        } else if (parts.length == 4 && parts[1].equals("scopes") && parts[3].equals("apply") && method.equals("POST")) {
            apply(exchange, parts[2]);
        } else if (parts.length == 4 && parts[1].equals("scopes") && method.equals("POST")) {
            statement(exchange, parts[2], parts[3]);
        } else {
            send(exchange, 404, Map.of("error", "not_found"));
        }
    }

    private Map<String, Object> health() {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("status", "ok");
        out.put("neo4j", org.neo4j.kernel.internal.Version.getNeo4jVersion());
        out.put("memory_mb", limits.memoryMb());
        out.put("scope_mb", limits.scopeMb());
        out.put("scopes_max", limits.held());
        out.put("standby", limits.standby());
        out.put("scopes", scopes.size());
        return out;
    }

    private void scope(HttpExchange exchange, String method, String key) throws Exception {
        switch (method) {
            case "GET" -> held(exchange, key);
            case "DELETE" -> send(exchange, 200, Map.of("deleted", scopes.delete(key)));
            case "PUT" -> {
                try (InputStream body = bounded(exchange)) {
                    load(key, body);
                }
                send(exchange, 200, Map.of("held", true));
            }
            default -> send(exchange, 405, Map.of("error", "method"));
        }
    }

    /** Whether the key is held, and the data version its copy holds. */
    private void held(HttpExchange exchange, String key) throws IOException {
        Scope scope = scopes.get(key);
        if (scope == null) {
            send(exchange, 404, Map.of("held", false));
            return;
        }
        try {
            send(exchange, 200, Map.of("held", true, "version", scope.version()));
        } finally {
            scope.release();
        }
    }

    /**
     * Brings a held copy up to date: {"from", "to", "steps": [{"statement", "params"}, ...]}, all in one
     * write transaction; 409 with the version it holds when that is not `from`.
     */
    private void apply(HttpExchange exchange, String key) throws Exception {
        Map<?, ?> body;
        try (InputStream in = bounded(exchange)) {
            body = JSON.readValue(in, Map.class);
        }
        Scope scope = scopes.get(key);
        if (scope == null) {
            send(exchange, 404, Map.of("error", "scope_not_held"));
            return;
        }
        try {
            List<Map<String, Object>> steps = new ArrayList<>();
            for (Object step : (List<?>) body.get("steps")) {
                Map<String, Object> one = new LinkedHashMap<>();
                ((Map<?, ?>) step).forEach((k, v) -> one.put(String.valueOf(k), v));
                steps.add(one);
            }
            String from = String.valueOf(body.get("from"));
            String to = String.valueOf(body.get("to"));
            if (scope.apply(from, to, steps, String.valueOf(body.get("refresh")))) {
                send(exchange, 200, Map.of("version", to));
            } else {
                send(exchange, 409, Map.of("error", "version_moved", "version", scope.version()));
            }
        } finally {
            scope.release();
        }
    }

    /**
     * The body streams in: {"version": "...", "schema": [...], "steps": [{"statement", "params"}, ...]},
     * in that order (the version may be left out: "").
     */
    private void load(String key, InputStream body) throws Exception {
        JsonParser parser = JSON.getFactory().createParser(body);
        expect(parser.nextToken() == JsonToken.START_OBJECT);
        String field = parser.nextFieldName();
        String version = "";
        if ("version".equals(field)) {
            expect(parser.nextToken() == JsonToken.VALUE_STRING);
            version = parser.getText();
            field = parser.nextFieldName();
        }
        expect("schema".equals(field) && parser.nextToken() == JsonToken.START_ARRAY);
        List<String> schema = new ArrayList<>();
        while (parser.nextToken() == JsonToken.VALUE_STRING) {
            schema.add(parser.getText());
        }
        expect("steps".equals(parser.nextFieldName()) && parser.nextToken() == JsonToken.START_ARRAY);
        if (!scopes.absent(key)) {
            return;
        }
        scopes.put(key, schema, version, scope -> {
            while (parser.nextToken() == JsonToken.START_OBJECT) {
                Map<?, ?> step = parser.readValueAs(Map.class);
                scope.write(String.valueOf(step.get("statement")), Values.params(step.get("params")));
            }
        });
    }

    private void statement(HttpExchange exchange, String key, String verb) throws Exception {
        Map<?, ?> body;
        try (InputStream in = bounded(exchange)) {
            body = JSON.readValue(in, Map.class);
        }
        Scope scope = scopes.get(key);
        if (scope == null) {
            send(exchange, 404, Map.of("error", "scope_not_held"));
            return;
        }
        try {
            send(exchange, 200, answer(scope, verb, body));
        } finally {
            scope.release();
        }
    }

    private Map<String, Object> answer(Scope scope, String verb, Map<?, ?> body) throws Exception {
        String text = String.valueOf(body.get("statement"));
        Map<String, Object> params = Values.params(body.get("params"));
        long timeoutMs = ((Number) body.get("timeout_ms")).longValue();
        int rowCap = body.get("row_cap") == null ? 0 : ((Number) body.get("row_cap")).intValue();
        // The caller may ask for less than the service allows, never more.
        long answerBytes = body.get("answer_bytes") instanceof Number asked
                ? Math.min(asked.longValue(), limits.answerBytes())
                : limits.answerBytes();
        Budget budget = new Budget(limits.valueBytes(), answerBytes);
        boolean explain = verb.equals("explain");
        if (!explain && !verb.equals("run")) {
            return Map.of("error", "not_found");
        }
        // Waiting for a slot counts against the statement's time, as a busy server's queue would.
        if (!scope.enter(timeoutMs)) {
            return Map.of("timed_out", true);
        }
        Scope.Running job = new Scope.Running();
        Future<Map<String, Object>> work = statements.submit(() -> {
            watchdog.watch(job);
            try {
                return explain
                        ? scope.explain(text, params, timeoutMs)
                        : scope.run(text, params, timeoutMs, rowCap, budget, job);
            } finally {
                watchdog.done(job);
                scope.leave();
            }
        });
        try {
            return work.get(timeoutMs + limits.graceMs(), TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            Failure failure = job.overBudget ? Failure.outOfMemory() : Failure.ofStatement(e.getCause());
            if (job.overBudget || e.getCause() instanceof OutOfMemoryError) {
                System.err.println("sandbox: a statement built more than it may ("
                        + (job.overBudget ? "heap pressure" : "heap") + "); its scope is dropped");
                // The statement built more than the heap holds; what it built is garbage now. Its
                // scope's database may have seen the error too, so the next request gets a fresh copy.
                scopes.delete(scope.key);
            }
            return failure.timedOut() ? Map.of("timed_out", true) : Map.of("failure", failure.json());
        } catch (TimeoutException e) {
            stuck(scope, job, work);
            return Map.of("timed_out", true, "stuck", true);
        }
    }

    /**
     * A statement Neo4j did not stop at its limit (an expression it cannot interrupt): its scope is
     * forgotten (the next request loads a fresh copy) and its thread is stopped; the database it ran
     * on is being discarded, so what stopping the thread leaves half-done belongs to nobody.
     */
    @SuppressWarnings({"deprecation", "removal"})
    private void stuck(Scope scope, Scope.Running job, Future<?> work) {
        scopes.delete(scope.key);
        if (job.transaction != null) {
            job.transaction.terminate(Status.Transaction.Terminated);
        }
        work.cancel(true);
        Thread thread = job.thread;
        if (thread != null && thread.isAlive()) {
            try {
                thread.stop();
            } catch (UnsupportedOperationException e) {
                // A JDK after 19 cannot stop a thread: the statement runs on until it ends.
            }
        }
    }


    private InputStream bounded(HttpExchange exchange) throws IOException {
        String length = exchange.getRequestHeaders().getFirst("Content-Length");
        if (length != null && Long.parseLong(length) > limits.maxBodyBytes()) {
            throw new IOException("body too large");
        }
        return exchange.getRequestBody();
    }

    private static void expect(boolean ok) throws IOException {
        if (!ok) {
            throw new IOException("malformed body");
        }
    }

    private static void send(HttpExchange exchange, int status, Object body) throws IOException {
        byte[] bytes = JSON.writeValueAsBytes(body);
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        exchange.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }
}
