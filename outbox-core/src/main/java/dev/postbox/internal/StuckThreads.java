package dev.postbox.internal;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Handler threads still inside an attempt that was given up for its time limit. A handler that
 * honours the interrupt leaves at once; one that ignores it keeps its thread, which this counts.
 *
 * <p>The slot is given back: the stuck thread's worker is replaced by a new one, so that the process
 * keeps its concurrency, while at most {@code limit} threads are stuck. Beyond that none is replaced
 * (the process would otherwise grow threads without bound behind a handler that hangs every time)
 * and the engine reports itself unhealthy until stuck threads return. A replaced worker ends when
 * its thread comes back.
 */
final class StuckThreads {

    private static final Logger log = LoggerFactory.getLogger(StuckThreads.class);

    private final Set<ClaimedJob> stuck = ConcurrentHashMap.newKeySet();
    private final int limit;
    private volatile Runnable replacer = () -> {};

    StuckThreads(int limit) {
        this.limit = limit;
    }

    /** How a worker is replaced (the engine starts a new one). */
    void replacer(Runnable replacer) {
        this.replacer = replacer;
    }

    /** The handler of this given-up attempt has not returned yet (called before it is stopped). */
    void add(ClaimedJob claimed) {
        stuck.add(claimed);
    }

    /**
     * Replaces the worker of a given-up attempt whose handler has not returned, while no more than
     * the limit are stuck (outside any lock: the engine starts a thread).
     */
    void replace(ClaimedJob claimed, @Nullable Worker worker) {
        if (!stuck.contains(claimed)) {
            return; // it came back already
        }
        int count = stuck.size();
        if (count > limit) {
            log.error(
                    "{} handler threads are stuck in attempts given up for their time limit, more than the {}"
                            + " tolerated (stuckThreadLimit): no longer replaced, and the worker reports itself"
                            + " unhealthy. Find the handler that ignores interrupts (a thread dump shows where kind"
                            + " {} waits) and restart the process.",
                    count,
                    limit,
                    claimed.job().kind());
        } else if (worker != null) {
            worker.replaced();
            replacer.run();
        }
    }

    /** The handler of a given-up attempt returned at last: its thread is free again. */
    void returned(ClaimedJob claimed) {
        stuck.remove(claimed);
    }

    int count() {
        return stuck.size();
    }

    int limit() {
        return limit;
    }
}
