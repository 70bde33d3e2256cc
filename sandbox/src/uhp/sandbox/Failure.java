package uhp.sandbox;

import org.neo4j.gqlstatus.ErrorGqlStatusObject;
import org.neo4j.kernel.api.exceptions.Status;

/**
 * What of a database error may leave the sandbox: its Neo4j status code and GQL status, never the
 * message (it can quote a value). The API turns the pair into one of its fixed sentences.
 */
record Failure(String code, String gqlStatus) {
    static final String UNKNOWN = "Neo.DatabaseError.General.UnknownError";
    /** Neo4j's own code for a heap that ran out; the API reads "Memory" in it as a memory bound. */
    static final String OUT_OF_MEMORY = "Neo.TransientError.General.OutOfMemoryError";

    /** A statement's failure; one Neo4j gives no status for (a bug in a function) is the statement's. */
    static Failure ofStatement(Throwable error) {
        Failure failure = of(error);
        return failure.code.equals(UNKNOWN) ? new Failure("Neo.DatabaseError.Statement.ExecutionFailed", null) : failure;
    }

    /** A statement that built more than it may: the heap's own error, or the watchdog's stop. */
    static Failure outOfMemory() {
        return new Failure(OUT_OF_MEMORY, null);
    }

    static Failure of(Throwable error) {
        String code = null;
        String gql = null;
        for (Throwable t = error; t != null && (code == null || gql == null); t = t.getCause()) {
            if (code == null && t instanceof OutOfMemoryError) {
                code = OUT_OF_MEMORY;
            }
            if (code == null && t instanceof Status.HasStatus has && has.status() != null) {
                code = has.status().code().serialize();
            }
            if (code == null && t instanceof org.neo4j.graphdb.QueryExecutionException q) {
                code = q.getStatusCode();
            }
            if (gql == null && t instanceof ErrorGqlStatusObject status) {
                String found = status.gqlStatus();
                gql = ErrorGqlStatusObject.DEFAULT_STATUS_CODE.equals(found) ? null : found;
            }
        }
        return new Failure(code == null ? UNKNOWN : code, gql);
    }

    /** As the API reads it: the code and the GQL status (null when Neo4j gave none). */
    java.util.Map<String, Object> json() {
        java.util.Map<String, Object> out = new java.util.LinkedHashMap<>();
        out.put("code", code);
        out.put("gql_status", gqlStatus);
        return out;
    }

    boolean timedOut() {
        return code.startsWith("Neo.ClientError.Transaction.TransactionTimedOut")
                || code.endsWith("Transaction.Terminated");
    }
}
