// The query sandbox's process: Neo4j's own community server, stopped and started again inside one
// JVM when the service asks (one word a line on stdin), so a sandbox goes back to its pristine store
// in about a second instead of a new JVM's ten, and keeps the code the JVM has already compiled.
// Between "stop" and "start" the service puts the template's store back (sandbox_template.reset).
// Every state change is one line on stdout (the console log), which the service waits for. When stdin
// closes, the service that owns the sandbox is gone, and the process stops with it.
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import org.neo4j.server.CommunityBootstrapper;

public final class UhpSandboxHost {
    private UhpSandboxHost() {}

    public static void main(String[] args) throws Exception {
        Path home = Path.of(args[0]);
        BufferedReader commands =
                new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        CommunityBootstrapper server = start(home);
        for (String line = commands.readLine(); line != null; line = commands.readLine()) {
            if (line.equals("stop") && server != null) {
                server.stop();
                server = null;
                say("stopped");
            } else if (line.equals("start") && server == null) {
                server = start(home);
            }
        }
        if (server != null) {
            server.stop();
        }
        System.exit(0);
    }

    private static CommunityBootstrapper start(Path home) {
        CommunityBootstrapper server = new CommunityBootstrapper();
        int status = server.start(home, home.resolve("conf").resolve("neo4j.conf"), Map.of(), false, false);
        if (status != 0) {
            say("failed " + status);
            System.exit(status);
        }
        say("ready");
        return server;
    }

    private static void say(String word) {
        System.out.println("uhp-sandbox-host: " + word);
        System.out.flush();
    }
}
