package dev.postbox.internal;

import dev.postbox.AttemptLogLevel;
import dev.postbox.BatchHandlerRegistration;
import dev.postbox.HandlerRegistration;
import dev.postbox.JsonCodec;
import dev.postbox.PostboxConfig;
import dev.postbox.PostboxInstrumentation;
import dev.postbox.PostboxListener;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Wires and runs the relay: dispatcher, workers, completion batcher, LISTEN connection, and the
 * maintenance services (heartbeat, start marks, rescuer, partitions, key cleaner, worker registry).
 *
 * <p>Every thread is a daemon thread except the dispatcher's: while the engine runs, that one keeps
 * the JVM alive (an application that only runs jobs has no other thread that would), and {@link
 * #stop()} ends it.
 */
public final class Engine {

    private static final Logger log = LoggerFactory.getLogger(Engine.class);

    /** Name of the claim loop's thread, the engine's only non-daemon thread. */
    public static final String DISPATCHER_THREAD = "postbox-dispatcher";

    private final DataSource dataSource;
    private final PostboxConfig config;
    private final PostboxListener listener;
    private final JobStore store = new JobStore();
    private final ClaimStore claims;
    private final LeaseStore leases;
    private final InFlight inFlight = new InFlight();
    private final Dispatcher dispatcher;
    private final CompletionBatcher completions;
    private final JobRunner runner;
    private final BatchRunner batches;
    private final Rescuer rescuer;
    private final WakeUps wakeUps;
    private final List<Worker> workers = new ArrayList<>();
    private final List<Thread> threads = new ArrayList<>();
    private ThreadFactory workerThreads = daemonThreads("postbox-worker-");
    // Set by start(), cleared by stop(): null while the engine is stopped.
    private @Nullable NotificationListener notifications;
    private @Nullable ScheduledExecutorService maintenance;
    private @Nullable WorkerRegistry registry;
    private volatile boolean running;

    public Engine(
            DataSource dataSource,
            PlatformTransactionManager transactionManager,
            Map<String, HandlerRegistration> handlers,
            Map<String, BatchHandlerRegistration> batchHandlers,
            JsonCodec codec,
            PostboxListener listener,
            PostboxInstrumentation instrumentation,
            PostboxConfig config,
            RetryPolicies policies,
            WakeUps wakeUps) {
        this.dataSource = dataSource;
        this.wakeUps = wakeUps;
        this.config = config;
        this.listener = listener;
        this.claims = new ClaimStore(codec);
        LeaseStore leases = new LeaseStore();
        this.leases = leases;
        this.dispatcher = new Dispatcher(dataSource, claims, inFlight, listener, config);
        this.completions = new CompletionBatcher(
                dataSource,
                store,
                inFlight,
                listener,
                config.completionBatchSize(),
                config.completionFlushInterval(),
                FailureBackoff.capFor(config.pollInterval()),
                config.attemptLog() == AttemptLogLevel.ALL);
        this.runner = new JobRunner(
                Map.copyOf(handlers),
                dataSource,
                new TransactionTemplate(transactionManager),
                store,
                leases,
                completions,
                inFlight,
                listener,
                instrumentation,
                config,
                policies,
                codec);
        this.batches =
                new BatchRunner(batchHandlers, runner, dataSource, store, inFlight, listener, instrumentation, config);
        this.rescuer = new Rescuer(dataSource, leases, listener, config, policies);
        inFlight.onRelease(job -> {
            dispatcher.released(job);
            if (job.job().orderingKey().isPresent()) {
                // the key's next job may be free now: the other processes claim it at once too
                wakeUps.keyMayBeFree();
            }
        });
        runner.stuckThreads().replacer(this::replaceWorker);
    }

    public synchronized void start() {
        if (running) {
            return;
        }
        running = true;
        NegativeControls.warnIfEnabled(log);
        ThreadFactory platform = daemonThreads("postbox-worker-");
        workerThreads = config.workerThreadFactory() != null ? config.workerThreadFactory() : platform;
        for (int i = 0; i < config.concurrency(); i++) {
            startWorker();
        }
        start(daemonThreads("postbox-completions-").newThread(completions));
        // The one non-daemon thread: it keeps a JVM with nothing else to do (a worker-only
        // application) alive while the engine runs, and ends in stop().
        Thread dispatcherThread = new Thread(dispatcher, DISPATCHER_THREAD);
        dispatcherThread.setDaemon(false);
        start(dispatcherThread);
        wakeUps.localDispatcher(dispatcher::wake);
        if (config.listenNotify()) {
            notifications =
                    new NotificationListener(dataSource, dispatcher::wake, config.pollInterval(), wakeUps.payload());
            start(daemonThreads("postbox-listen-").newThread(notifications));
        }
        WorkerRegistry registry = new WorkerRegistry(dataSource, config);
        this.registry = registry;
        // Two threads, so that a slow maintenance pass (partition DDL waiting for a lock) never
        // delays the heartbeat past the visibility timeout.
        ScheduledExecutorService maintenance =
                Executors.newScheduledThreadPool(2, daemonThreads("postbox-maintenance-"));
        this.maintenance = maintenance;
        schedule(
                maintenance, new Heartbeat(dataSource, leases, inFlight, listener, config), config.heartbeatInterval());
        schedule(maintenance, new StartMarks(dataSource, leases, inFlight), config.startMarkInterval());
        schedule(maintenance, rescuer, config.rescueInterval());
        schedule(
                maintenance,
                new ArchivePartitions(dataSource, config.partitionsAhead(), config.archiveRetention()),
                config.maintenanceInterval());
        schedule(maintenance, new IdempotencyKeyCleaner(dataSource), config.maintenanceInterval());
        schedule(
                maintenance,
                new AttemptLogCleaner(dataSource, config.archiveRetention()),
                config.maintenanceInterval());
        schedule(maintenance, registry, config.heartbeatInterval());
        log.info(
                "Postbox worker {} started: queues {}, concurrency {}",
                config.workerId(),
                config.queues(),
                config.concurrency());
    }

    private void startWorker() {
        Worker worker = new Worker(dispatcher.buffer(), runner, batches);
        workers.add(worker);
        start(workerThreads.newThread(worker));
    }

    /**
     * A worker's thread is stuck in an attempt given up for its time limit: a new worker takes its
     * slot (the stuck one ends when its handler returns). See {@link StuckThreads}.
     */
    private synchronized void replaceWorker() {
        if (running) {
            startWorker();
        }
    }

    /**
     * Handler threads stuck in attempts given up for their time limit (their handlers ignored the
     * interrupt and have not returned).
     */
    public int stuckThreads() {
        return runner.stuckThreads().count();
    }

    private void start(Thread t) {
        threads.add(t);
        t.start();
    }

    private static void schedule(ScheduledExecutorService maintenance, Runnable task, Duration interval) {
        maintenance.scheduleWithFixedDelay(task, 0, interval.toMillis(), TimeUnit.MILLISECONDS);
    }

    /**
     * Graceful stop: no new claims; jobs claimed but not started are released without charging an
     * attempt; running jobs get the grace period to finish; completions are flushed.
     */
    public synchronized void stop() {
        if (!running) {
            return;
        }
        running = false;
        wakeUps.localDispatcher(null);
        dispatcher.stop();
        NotificationListener notifications = this.notifications;
        if (notifications != null) {
            notifications.stop(); // before the joins below: its thread only ends when told to
            this.notifications = null;
        }
        workers.forEach(Worker::stop);
        releaseUnstarted();
        long deadline = System.nanoTime() + config.shutdownGrace().toNanos();
        for (Thread t : threads) {
            if (t.getName().startsWith("postbox-completions-")) {
                continue;
            }
            joinUntil(t, deadline);
        }
        releaseUnstarted();
        completions.stop();
        for (Thread t : threads) {
            if (t.getName().startsWith("postbox-completions-")) {
                joinUntil(t, System.nanoTime() + TimeUnit.SECONDS.toNanos(10));
            }
        }
        ScheduledExecutorService maintenance = this.maintenance;
        if (maintenance != null) {
            maintenance.shutdownNow();
            this.maintenance = null;
        }
        WorkerRegistry registry = this.registry;
        if (registry != null) {
            registry.deregister();
            this.registry = null;
        }
        for (Thread t : threads) {
            if (t.isAlive()) {
                t.interrupt();
            }
        }
        threads.clear();
        workers.clear();
        log.info("Postbox worker {} stopped", config.workerId());
    }

    private void releaseUnstarted() {
        List<ClaimedJob> unstarted = dispatcher.drainUnstarted();
        if (unstarted.isEmpty()) {
            return;
        }
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(true);
            List<Long> released = store.snooze(
                    c,
                    unstarted,
                    Duration.ZERO,
                    config.workerId(),
                    "released at shutdown",
                    false,
                    config.attemptLog() != AttemptLogLevel.NONE);
            log.info("Released {} claimed but unstarted jobs at shutdown", released.size());
        } catch (SQLException e) {
            log.warn("Releasing {} unstarted jobs failed; their leases expire and they run again", unstarted.size(), e);
        } finally {
            unstarted.forEach(inFlight::remove);
        }
    }

    private static void joinUntil(Thread t, long deadlineNanos) {
        long remaining = deadlineNanos - System.nanoTime();
        try {
            if (remaining > 0) {
                t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(remaining)));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    public boolean isRunning() {
        return running;
    }

    /**
     * Claims and runs due jobs in the calling thread until none is due; returns how many ran. For
     * tests and tools; do not combine with a started engine on the same queues.
     */
    public int runDueJobs() {
        int ran = 0;
        try {
            while (true) {
                List<ClaimedJob> jobs = new ArrayList<>();
                for (String queue : config.queues()) {
                    int room = dispatcher.reserve(config.claimBatchSize());
                    List<ClaimedJob> claimed = List.of();
                    try (Connection c = dataSource.getConnection()) {
                        c.setAutoCommit(true);
                        claimed = room == 0
                                ? List.of()
                                : claims.claim(c, queue, room, config.workerId(), config.visibilityTimeout());
                    } finally {
                        dispatcher.giveBack(room - claimed.size());
                    }
                    dispatcher.held(claimed);
                    inFlight.add(claimed);
                    jobs.addAll(claimed);
                }
                if (jobs.isEmpty()) {
                    return ran;
                }
                Map<String, List<ClaimedJob>> byBatchKind = new LinkedHashMap<>();
                for (ClaimedJob job : jobs) {
                    if (batches.handles(job)) {
                        byBatchKind
                                .computeIfAbsent(job.job().kind(), k -> new ArrayList<>())
                                .add(job);
                    } else {
                        runner.run(job);
                    }
                    ran++;
                }
                for (List<ClaimedJob> ofKind : byBatchKind.values()) {
                    int size = batches.maxBatchSize(ofKind.get(0));
                    for (int from = 0; from < ofKind.size(); from += size) {
                        batches.run(ofKind.subList(from, Math.min(ofKind.size(), from + size)));
                    }
                }
                completions.flushNow();
            }
        } catch (SQLException e) {
            throw new IllegalStateException("Running due jobs failed: " + e.getMessage(), e);
        }
    }

    /** Runs one rescue pass now (tests, tools). */
    public LeaseStore.Rescued rescueNow() {
        try {
            return rescuer.rescueAll();
        } catch (SQLException e) {
            throw new IllegalStateException("Rescuing expired leases failed: " + e.getMessage(), e);
        }
    }

    /** Number of claims this engine holds right now. */
    public int heldClaims() {
        return inFlight.size();
    }

    private static ThreadFactory daemonThreads(String prefix) {
        AtomicInteger n = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, prefix + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }
}
