package uhp.sandbox;

import java.lang.management.ManagementFactory;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.neo4j.kernel.api.exceptions.Status;

/**
 * Bounds the memory a statement builds that Neo4j's own transaction tracker does not see (a string
 * doubled in `reduce`, say): every few milliseconds it reads how many bytes each running
 * statement's thread has allocated since it began, and stops a statement past `limitBytes` before
 * its values can fill the heap every other scope shares. Allocated bytes over-count what is live
 * (garbage counts too), so the bound is generous; a statement stopped here answers as out of memory.
 */
final class Watchdog {
    private static final long PERIOD_MS = 10;
    private final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    private final long limitBytes;
    private final Set<Scope.Running> running = ConcurrentHashMap.newKeySet();
    private final ScheduledExecutorService ticks = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "uhp-watchdog");
        t.setDaemon(true);
        return t;
    });

    Watchdog(long limitBytes) {
        this.limitBytes = limitBytes;
        threads.setThreadAllocatedMemoryEnabled(true);
        ticks.scheduleAtFixedRate(this::check, PERIOD_MS, PERIOD_MS, TimeUnit.MILLISECONDS);
    }

    /** Called on the statement's own thread as it starts. */
    void watch(Scope.Running job) {
        job.thread = Thread.currentThread();
        job.allocatedAtStart = threads.getThreadAllocatedBytes(job.thread.getId());
        running.add(job);
    }

    void done(Scope.Running job) {
        running.remove(job);
    }

    private void check() {
        for (Scope.Running job : running) {
            Thread thread = job.thread;
            if (thread == null || job.overBudget) {
                continue;
            }
            long allocated = threads.getThreadAllocatedBytes(thread.getId()) - job.allocatedAtStart;
            if (allocated > limitBytes) {
                stop(job, thread);
            }
        }
    }

    @SuppressWarnings({"deprecation", "removal"})
    private static void stop(Scope.Running job, Thread thread) {
        job.overBudget = true;
        if (job.transaction != null) {
            job.transaction.terminate(Status.Transaction.Terminated);
        }
        try {
            // An expression loop does not look at its transaction's termination; a stop does reach it.
            thread.stop();
        } catch (UnsupportedOperationException e) {
            // A JDK after 19 cannot stop a thread: the heap's own limit remains.
        }
    }
}
