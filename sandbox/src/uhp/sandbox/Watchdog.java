package uhp.sandbox;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.neo4j.kernel.api.exceptions.Status;

/**
 * Bounds the memory statements build that Neo4j's own transaction tracker does not see (a string
 * doubled in `reduce`, say). Every few milliseconds it reads how full the old generation is, where
 * large values land at once and what outlives a young collection stays; past `pressurePercent` of
 * the heap, it stops the running statement that has allocated the most since it began (when that is
 * at least `SUSPECT_BYTES`), before the heap every other scope shares runs out. Streaming work (a
 * count over a long range) makes only short-lived garbage, which never fills the old generation, so
 * it is not stopped. A statement stopped here answers as out of memory.
 */
final class Watchdog {
    private static final long PERIOD_MS = 5;
    private static final long SUSPECT_BYTES = 64L * 1024 * 1024;
    private final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    private final MemoryPoolMXBean old = oldGeneration();
    private final long limitBytes;
    private final Set<Scope.Running> running = ConcurrentHashMap.newKeySet();
    private final ScheduledExecutorService ticks = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "uhp-watchdog");
        t.setDaemon(true);
        return t;
    });

    Watchdog(int pressurePercent) {
        this.limitBytes = Runtime.getRuntime().maxMemory() / 100 * pressurePercent;
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
        if (old == null || running.isEmpty() || old.getUsage().getUsed() < limitBytes) {
            return;
        }
        Scope.Running heaviest = null;
        long most = SUSPECT_BYTES;
        for (Scope.Running job : running) {
            Thread thread = job.thread;
            if (thread == null || job.overBudget) {
                continue;
            }
            long allocated = threads.getThreadAllocatedBytes(thread.getId()) - job.allocatedAtStart;
            if (allocated > most) {
                most = allocated;
                heaviest = job;
            }
        }
        if (heaviest != null) {
            stop(heaviest, heaviest.thread);
        }
    }

    private static MemoryPoolMXBean oldGeneration() {
        for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
            if (pool.getType() == MemoryType.HEAP && pool.getName().contains("Old Gen")) {
                return pool;
            }
        }
        return null;
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
