package dev.postbox.chaos;

import dev.postbox.JobRequest;
import dev.postbox.Outbox;
import dev.postbox.http.webhook.Webhooks;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.sql.Statement;
import java.sql.Types;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.TransactionSystemException;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The application under test: business transactions (Spring transactions on the DataSource, as in
 * an application) that insert a {@code chaos_order} row and 1-4 intents of mixed kinds, or a burst
 * of webhooks to the rate-limited endpoint; a share rolls back on purpose. Every intent carries the
 * producer's own {@code tx} and {@code seq} in its payload, and is recorded in {@code chaos_intent}
 * outside the transaction with the transaction's outcome, its tenant and its idempotency key. A
 * mixed transaction belongs to one tenant ({@link ChaosTenants}): a named tenant's local jobs,
 * webhooks (to its own endpoint) and events are its jobs; local jobs, webhooks and events take the
 * key {@code k-<n>}, n counted per tenant, so every tenant reuses the others' keys.
 *
 * <p>An ordering key's local jobs and webhooks are written as an application with several threads
 * writes them: each sequence is two transactions of the key, started together on two of {@link
 * #KEYED_THREADS} producer threads. Each bumps its aggregate's version row ({@code chaos_aggregate})
 * either before or after its enqueues (chosen at random), holding the transaction open 0-{@value
 * #KEYED_HOLD_MAX_MILLIS} ms between the two, and records the version it got: the key's commit order,
 * recorded by the application (the row lock orders the key's transactions, so no two of them are
 * unordered). A transaction that enqueues first and locks second may commit after a later enqueue,
 * which is what per-key commit order must survive. Every 20th mixed transaction of the default tenant
 * also carries a job of a hung kind ({@link WorkerMain#HUNG}, {@link WorkerMain#HUNG_DEAF}), in turn.
 * A transaction that fails for any reason other than a deliberate rollback or a connection error whose outcome is
 * then settled is a producer failure, and fails the run.
 */
final class Producer {

    private static final Logger log = LoggerFactory.getLogger(Producer.class);

    static final String LOCAL = WorkerMain.LOCAL;
    static final String POISON = WorkerMain.POISON;
    static final String WEBHOOK = "webhook";
    static final String LIMITED = "webhook-limited";
    static final String EVENT = "event";
    /** Transactions of the preload (a backlog written before the workers start). */
    private static final int PRELOAD_TX_SIZE = 50;
    /**
     * Webhooks to the rate-limited endpoint in one burst: {@link #BURST_TRANSACTIONS} transactions of
     * 5, one every 125 ms, so that every worker claims some of them (a worker claims up to its whole
     * claim batch at once; one transaction of 40 would land in one process and hide a limit held per
     * process).
     */
    static final int LIMITED_BURST_SIZE = 40;

    static final int BURST_TRANSACTIONS = 8;
    private static final long BURST_SPACING_NANOS = 125_000_000L;
    /**
     * Under the {@link Control#BROKEN_ENQUEUE} control, business transactions with {@code tx % this ==
     * this / 2} fail: one of their enqueues carries a truncated payload.
     */
    static final int BROKEN_ENQUEUE_EVERY = 50;

    private final ChaosConfig.Workload workload;
    private final int localMaxAttempts;
    private final DataSource ds;
    private final Outbox outbox;
    private final Webhooks webhooks;
    private final Brokers brokers;
    private final SplittableRandom random;
    private final boolean ghostControl;
    private final boolean poisonAttemptControl;
    private final boolean brokenEnqueueControl;
    private final boolean hungWithoutTimeLimitControl;
    /** Runs the ordering keys' transactions, two of a key at a time ({@link #keyedPair}). */
    private final ExecutorService keyed;

    private final TransactionTemplate transactions;
    private final JdbcTemplate jdbc;
    private long txId;
    private long seq;
    /** Idempotency keys given so far per tenant: the default tenant's, then each named tenant's. */
    private final long[] keysPerTenant = new long[ChaosTenants.NAMED.size() + 1];
    /** Burst slots so far: each takes the next named tenant for its tenant burst. */
    private long burstSlots;

    volatile long committedIntents;
    volatile long rolledBackIntents;
    long committedTransactions;
    long rolledBackTransactions;
    long backPressureWaits;
    long bursts;
    long burstsSkipped;
    long tenantBursts;
    long tenantBurstsSkipped;
    long retries;
    long ambiguousCommits;
    long failures;
    long keyedTransactions;
    long hungIntents;
    /** Mixed transactions so far: every {@link #HUNG_EVERY}th takes a hung job. */
    private long mixedTransactions;

    private int sinceBacklogCheck;

    /** {@code brokers}: the run's broker destinations, or null for a run without broker traffic. */
    Producer(
            ChaosConfig config,
            DataSource ds,
            Outbox outbox,
            Webhooks webhooks,
            Brokers brokers,
            SplittableRandom random) {
        this.workload = config.workload();
        this.localMaxAttempts = config.engine().maxAttempts();
        this.ds = ds;
        this.outbox = outbox;
        this.webhooks = webhooks;
        this.brokers = brokers;
        this.random = random;
        this.ghostControl = config.controls().contains(Control.GHOST);
        this.poisonAttemptControl = config.controls().contains(Control.POISON_ATTEMPT_TOO_MANY);
        this.brokenEnqueueControl = config.controls().contains(Control.BROKEN_ENQUEUE);
        this.hungWithoutTimeLimitControl = config.controls().contains(Control.HUNG_WITHOUT_TIME_LIMIT);
        this.keyed = Executors.newFixedThreadPool(KEYED_THREADS, r -> {
            Thread t = new Thread(r, "chaos-keyed-producer");
            t.setDaemon(true);
            return t;
        });
        this.transactions = new TransactionTemplate(new DataSourceTransactionManager(ds));
        this.jdbc = new JdbcTemplate(ds);
    }

    /**
     * Writes the backlog as fast as it goes: transactions of 50 intents until {@code target} committed,
     * all of the default tenant (a named tenant's share of a preload would wait on its webhook rate).
     */
    void preload(int target) throws SQLException, InterruptedException {
        while (committedIntents < target) {
            businessTransaction(newIntents(PRELOAD_TX_SIZE, false, null));
        }
        log.info("preload: {} intents committed, {} rolled back", committedIntents, rolledBackIntents);
    }

    /**
     * Produces at the configured pace until {@code enough} says so or {@code maxProduceTime} passed,
     * waiting while more than {@code maxBacklog} jobs are live (the workers' capacity, not the
     * producer's pace, then sets the run's length).
     */
    void run(BooleanSupplier enough) throws SQLException, InterruptedException {
        long start = System.nanoTime();
        long deadline = start + workload.maxProduceTime().toNanos();
        long interval = (long) (1e9 / workload.txPerSecond());
        long burstEvery = workload.burstEvery().toNanos();
        long next = start;
        long nextBurst = start + burstEvery;
        int burstTransactionsLeft = 0;
        boolean burstLimited = false;
        String burstTenant = null;
        long lastLog = start;
        while (System.nanoTime() < deadline && !enough.getAsBoolean()) {
            long sleep = Math.min(next, burstTransactionsLeft > 0 ? nextBurst : Long.MAX_VALUE) - System.nanoTime();
            if (sleep > 0) {
                TimeUnit.NANOSECONDS.sleep(sleep);
            }
            if (workload.mixedKinds()
                    && burstEvery > 0
                    && burstTransactionsLeft == 0
                    && System.nanoTime() >= nextBurst) {
                // the endpoint (10/s) or the tenant (10/s) has not carried its last burst yet: skip one
                // rather than let its backlog grow past what the drain can deliver on a slow, busy machine
                burstLimited = retrying(Producer::limitedBacklog) < LIMITED_BURST_SIZE;
                String tenant = ChaosTenants.NAMED.get((int) (burstSlots++ % ChaosTenants.NAMED.size()));
                burstTenant = retrying(c -> tenantBacklog(c, tenant)) < LIMITED_BURST_SIZE ? tenant : null;
                if (burstLimited) {
                    bursts++;
                } else {
                    burstsSkipped++;
                }
                if (burstTenant != null) {
                    tenantBursts++;
                } else {
                    tenantBurstsSkipped++;
                }
                if (burstLimited || burstTenant != null) {
                    burstTransactionsLeft = BURST_TRANSACTIONS;
                } else {
                    nextBurst += burstEvery;
                }
            }
            if (burstTransactionsLeft > 0 && System.nanoTime() >= nextBurst) {
                // a step of the burst: 5 webhooks to the rate-limited endpoint (default tenant), and 5 of
                // the slot's named tenant to its endpoint, in a transaction of that tenant
                if (burstLimited) {
                    businessTransaction(newIntents(LIMITED_BURST_SIZE / BURST_TRANSACTIONS, true, null));
                }
                if (burstTenant != null) {
                    businessTransaction(tenantBurst(burstTenant, LIMITED_BURST_SIZE / BURST_TRANSACTIONS));
                }
                burstTransactionsLeft--;
                nextBurst += burstTransactionsLeft > 0 ? BURST_SPACING_NANOS : burstEvery - 7 * BURST_SPACING_NANOS;
                continue;
            }
            if (System.nanoTime() < next) {
                continue;
            }
            next += interval;
            String tenant = tenant();
            List<Intent> intents = newIntents(1 + random.nextInt(4), false, tenant);
            if (isKeyedSequence(intents)) {
                keyedPair(intents, tenant);
            } else {
                if (workload.mixedKinds()
                        && tenant == null
                        && intents.get(0).orderingKey() == null
                        && ++mixedTransactions % HUNG_EVERY == 0) {
                    intents.add(intent(
                            (mixedTransactions / HUNG_EVERY) % 2 == 0 ? WorkerMain.HUNG : WorkerMain.HUNG_DEAF,
                            null,
                            null));
                    hungIntents++;
                }
                businessTransaction(intents);
            }
            if (++sinceBacklogCheck >= 25) {
                sinceBacklogCheck = 0;
                awaitBacklogBelow(deadline);
                next = Math.max(next, System.nanoTime());
            }
            if (System.nanoTime() - lastLog > 15_000_000_000L) {
                lastLog = System.nanoTime();
                log.info("producer: {} intents committed, {} rolled back", committedIntents, rolledBackIntents);
            }
        }
        awaitKeyedTransactions();
    }

    /** Producer threads for the ordering keys' transactions: two per sequence, and room for the next. */
    static final int KEYED_THREADS = 4;

    /** Longest a keyed transaction stays open between its aggregate's lock and its enqueues. */
    static final int KEYED_HOLD_MAX_MILLIS = 20;

    /** Every this many mixed transactions of the default tenant, one carries a hung job. */
    static final int HUNG_EVERY = 20;

    /** An ordered sequence of local jobs or webhooks (a Kafka sequence keeps one thread: its check is by seq). */
    private static boolean isKeyedSequence(List<Intent> intents) {
        String kind = intents.get(0).kind();
        return intents.get(0).orderingKey() != null && (kind.equals(LOCAL) || kind.equals(WEBHOOK));
    }

    /**
     * One ordering key's sequence as two transactions of the key, split in enqueue order, each on a
     * producer thread of its own, started together; each decides on its own to roll back, and to lock
     * its aggregate before or after its enqueues.
     */
    private void keyedPair(List<Intent> intents, String tenant) {
        int split = (intents.size() + 1) / 2;
        for (List<Intent> part : List.of(intents.subList(0, split), intents.subList(split, intents.size()))) {
            long tx = ++txId;
            boolean rollback = random.nextDouble() < workload.rollbackShare();
            KeyStep step = new KeyStep(
                    tenant == null ? "" : tenant,
                    part.get(0).orderingKey(),
                    random.nextBoolean(),
                    random.nextInt(KEYED_HOLD_MAX_MILLIS + 1));
            List<Intent> own = List.copyOf(part);
            keyed.execute(() -> {
                try {
                    businessTransaction(tx, own, rollback, step);
                } catch (SQLException | InterruptedException | RuntimeException e) {
                    synchronized (this) {
                        failures++;
                    }
                    log.error("keyed business transaction {} failed (a producer failure fails the run)", tx, e);
                }
            });
        }
    }

    /** Waits until every keyed transaction handed to the producer threads has ended. */
    private void awaitKeyedTransactions() throws InterruptedException {
        keyed.shutdown();
        if (!keyed.awaitTermination(5, TimeUnit.MINUTES)) {
            throw new IllegalStateException("keyed producer threads did not finish within 5 minutes");
        }
    }

    /**
     * How a keyed transaction takes its aggregate's row ({@code tenant} {@code ''}: the default): before
     * ({@code lockFirst}) or after its enqueues, staying open {@code holdMillis} between the two.
     */
    private record KeyStep(String tenant, String key, boolean lockFirst, int holdMillis) {}

    /** Takes the aggregate's row lock and its next version (the key's commit order). */
    private long bumpVersion(KeyStep step) {
        Long version = jdbc.queryForObject(
                "INSERT INTO chaos_aggregate (tenant, ordering_key, version) VALUES (?, ?, 1)"
                        + " ON CONFLICT (tenant, ordering_key) DO UPDATE SET version = chaos_aggregate.version + 1"
                        + " RETURNING version",
                Long.class,
                step.tenant(),
                step.key());
        if (version == null) {
            throw new IllegalStateException("no version for key " + step.key());
        }
        return version;
    }

    /**
     * One intent: its kind (the checker's expected targets), ordering key, seq, tenant (null: the
     * default tenant) and idempotency key.
     */
    record Intent(String kind, String orderingKey, long seq, String tenant, String key) {}

    /** Share of mixed transactions that are one ordering key's sequence of 2-4 intents. */
    private static final double ORDERED_TX_SHARE = 0.25;

    /**
     * Ordering keys per ordered kind at the CI profile's 40 transactions a second: few, so that a key
     * often has several jobs due at once. A faster profile gets proportionally more
     * ({@link #orderingKeys}), so each key carries the same load at every rate: a key's jobs run one
     * after another, and the soak's 130/s on 16 keys asked more of each key than one job at a time
     * under the soak's load gave (its ordered webhooks queued up to the back-pressure bound and held
     * the producer to two thirds of its rate).
     */
    private static final int ORDERING_KEYS_AT_CI_RATE = 16;

    private static final int CI_TX_PER_SECOND = 40;

    /** Ordering keys per ordered kind for a rate: the CI profile's keys, scaled with the rate. */
    static int orderingKeys(double txPerSecond) {
        return Math.max(
                ORDERING_KEYS_AT_CI_RATE, (int) Math.ceil(ORDERING_KEYS_AT_CI_RATE * txPerSecond / CI_TX_PER_SECOND));
    }

    /** The tenant of the next mixed transaction: each named one at its share, else the default (null). */
    private String tenant() {
        if (!workload.mixedKinds()) {
            return null;
        }
        int i = (int) (random.nextDouble() / ChaosTenants.shareEach(workload.txPerSecond()));
        return i < ChaosTenants.NAMED.size() ? ChaosTenants.NAMED.get(i) : null;
    }

    /**
     * The intents of one transaction: a burst's webhooks to the rate-limited endpoint; local jobs
     * only; or, mixed, either one ordering key's sequence (2-4 local jobs, 2-4 webhooks or, with
     * brokers, 2-4 Kafka messages, like the events of one order) or 1-4 unordered intents of any kind.
     * A named tenant's transaction holds its local jobs, webhooks and events only (a poison job or a
     * broker message it would write is a local job).
     */
    private List<Intent> newIntents(int n, boolean burst, String tenant) {
        List<Intent> intents = new ArrayList<>(n);
        if (workload.mixedKinds() && !burst && random.nextDouble() < ORDERED_TX_SHARE) {
            // with brokers: 40 % local jobs, 40 % webhooks, 20 % Kafka messages; without: half and half
            double k = random.nextDouble() * (brokers != null ? 1.0 : 0.8);
            String kind = k >= 0.8 ? Brokers.KAFKA : k < 0.4 ? LOCAL : WEBHOOK;
            kind = ofTenant(kind, tenant);
            String prefix = kind.equals(LOCAL) ? "ordl-" : kind.equals(WEBHOOK) ? "ordw-" : "ordk-";
            String key = prefix + random.nextInt(orderingKeys(workload.txPerSecond()));
            for (int j = 0, size = 2 + random.nextInt(3); j < size; j++) {
                intents.add(intent(kind, key, tenant));
            }
            return intents;
        }
        for (int j = 0; j < n; j++) {
            if (burst) {
                intents.add(intent(LIMITED, null, null));
            } else if (!workload.mixedKinds()) {
                intents.add(intent(LOCAL, null, null));
            } else {
                intents.add(intent(ofTenant(unorderedKind(), tenant), null, tenant));
            }
        }
        return intents;
    }

    /** A tenant burst's step: {@code n} webhooks of the tenant to its endpoint. */
    private List<Intent> tenantBurst(String tenant, int n) {
        List<Intent> intents = new ArrayList<>(n);
        for (int j = 0; j < n; j++) {
            intents.add(intent(WEBHOOK, null, tenant));
        }
        return intents;
    }

    /** The kinds a named tenant writes: local jobs, webhooks and events; anything else becomes a local job. */
    private static String ofTenant(String kind, String tenant) {
        return tenant == null || kind.equals(WEBHOOK) || kind.equals(EVENT) ? kind : LOCAL;
    }

    /**
     * The next intent, with its idempotency key: {@code k-<n>} for local jobs, webhooks and events (n
     * counted per tenant: the same keys in every tenant, each of which must still make its own job),
     * {@code i-<seq>} for the rest.
     */
    private Intent intent(String kind, String orderingKey, String tenant) {
        long s = ++seq;
        String key = kind.equals(LOCAL) || kind.equals(WEBHOOK) || kind.equals(EVENT)
                ? "k-" + ++keysPerTenant[tenant == null ? 0 : ChaosTenants.NAMED.indexOf(tenant) + 1]
                : "i-" + s;
        return new Intent(kind, orderingKey, s, tenant, key);
    }

    /** Share of unordered intents that go to a broker (a third to each), taken from the local jobs' share. */
    private static final double BROKER_SHARE = 0.12;

    private String unorderedKind() {
        double k = random.nextDouble();
        double localEnd = brokers == null ? 0.50 : 0.50 - BROKER_SHARE;
        if (k < workload.poisonShare()) {
            return POISON;
        } else if (k < localEnd) {
            return LOCAL;
        } else if (k < 0.50) {
            int broker = (int) ((k - localEnd) / (BROKER_SHARE / Brokers.ALL.size()));
            return Brokers.ALL.get(Math.min(broker, Brokers.ALL.size() - 1));
        } else if (k < 0.92) {
            return WEBHOOK;
        }
        return EVENT;
    }

    /** One business transaction: the order row and its intents, committed or rolled back on purpose. */
    private void businessTransaction(List<Intent> intents) throws SQLException, InterruptedException {
        businessTransaction(++txId, intents, random.nextDouble() < workload.rollbackShare(), null);
    }

    /**
     * One business transaction; {@code step}: for a keyed one, when it bumps its aggregate's version
     * (null: it has no aggregate). Runs on the producer's thread or on a keyed producer thread.
     */
    private void businessTransaction(long tx, List<Intent> intents, boolean rollback, KeyStep step)
            throws SQLException, InterruptedException {
        Boolean committed = null;
        long[] enqueuedMs = {System.currentTimeMillis()};
        Long[] version = {null};
        boolean[] callbackDone = {false};
        for (int attempt = 1; ; attempt++) {
            callbackDone[0] = false;
            try {
                transactions.executeWithoutResult(status -> {
                    jdbc.update("INSERT INTO chaos_order (tx, intents) VALUES (?, ?)", tx, intents.size());
                    if (step != null && step.lockFirst()) {
                        version[0] = bumpVersion(step);
                        LockSupport.parkNanos(step.holdMillis() * 1_000_000L);
                    }
                    if (brokenEnqueueControl && tx % BROKEN_ENQUEUE_EVERY == BROKEN_ENQUEUE_EVERY / 2) {
                        // CONTROL BROKEN_ENQUEUE: a broken serialiser truncates a payload; Postbox refuses it
                        outbox.enqueue(JobRequest.builder(LOCAL)
                                .rawJson("{\"tx\": " + tx + ", \"seq\": ")
                                .build());
                    }
                    for (Intent i : intents) {
                        enqueue(tx, i);
                    }
                    enqueuedMs[0] = System.currentTimeMillis();
                    if (step != null && !step.lockFirst()) {
                        LockSupport.parkNanos(step.holdMillis() * 1_000_000L);
                        version[0] = bumpVersion(step);
                    }
                    if (rollback) {
                        status.setRollbackOnly();
                    }
                    callbackDone[0] = true;
                });
                committed = !rollback;
            } catch (RuntimeException thrown) {
                // A rollback that failed on a dead connection hides what went wrong first: judge that.
                RuntimeException e = thrown instanceof TransactionSystemException tse
                                && tse.getApplicationException() instanceof RuntimeException first
                        ? first
                        : thrown;
                if (connectionError(e) && !callbackDone[0] && attempt < 60) {
                    // failed before the commit (the server restarting): nothing committed, run it again
                    synchronized (this) {
                        retries++;
                    }
                    Thread.sleep(500);
                    continue;
                } else if (connectionError(e) && callbackDone[0] && !rollback) {
                    committed = null; // the commit failed: settled below from the chaos_order row
                } else if (connectionError(e) && callbackDone[0]) {
                    committed = false; // a deliberate rollback on a dying connection: no COMMIT was sent
                } else {
                    synchronized (this) {
                        failures++;
                    }
                    log.error("business transaction {} failed (a producer failure fails the run)", tx, thrown);
                    committed = false;
                }
            }
            break;
        }
        Boolean outcome = committed;
        retrying(side -> {
            record(side, tx, intents, outcome, enqueuedMs[0], version[0]);
            return null;
        });
        if (committed == null) {
            synchronized (this) {
                ambiguousCommits++;
            }
            committed = retrying(c -> orderRowExists(c, tx));
            log.info("business transaction {}: commit outcome unknown, order row present: {}", tx, committed);
        }
        synchronized (this) { // the keyed producer threads count here too
            if (committed) {
                committedIntents += intents.size();
                committedTransactions++;
            } else {
                rolledBackIntents += intents.size();
                rolledBackTransactions++;
            }
            if (step != null) {
                keyedTransactions++;
            }
        }
    }

    /** Enqueues one intent in the current business transaction (or, under the ghost control, in its own). */
    private void enqueue(long tx, Intent i) {
        Map<String, Object> payload = new LinkedHashMap<>();
        payload.put("tx", tx);
        payload.put("seq", i.seq());
        if (i.orderingKey() != null) {
            payload.put("ok", i.orderingKey());
        }
        String key = i.key();
        switch (i.kind()) {
            case WEBHOOK, LIMITED -> {
                // a delivery to an endpoint of a tenant is a job of that tenant
                String endpoint = i.kind().equals(LIMITED)
                        ? ChaosEndpoints.RX_LIMITED
                        : i.tenant() == null ? ChaosEndpoints.RX : ChaosTenants.rx(i.tenant());
                if (i.orderingKey() == null) {
                    webhooks.send(endpoint, payload, key);
                } else {
                    // Webhooks.send has no ordering key: the same validated request, plus the key.
                    outbox.enqueue(webhooks.delivery(endpoint, payload, key, Map.of()).toBuilder()
                            .orderingKey(i.orderingKey())
                            .build());
                }
            }
            case EVENT -> {
                if (i.tenant() == null) {
                    webhooks.publish(ChaosEndpoints.EVENT_TYPE, payload, key);
                } else {
                    webhooks.publishFor(i.tenant(), ChaosEndpoints.EVENT_TYPE, payload, key);
                }
            }
            case Brokers.KAFKA, Brokers.AMQP, Brokers.NATS ->
                outbox.enqueue(brokers.message(i.kind(), payload, key)
                        .orderingKey(i.orderingKey())
                        .build());
            default -> {
                JobRequest.Builder request = JobRequest.builder(i.kind())
                        .payload(payload)
                        .idempotencyKey(key)
                        .orderingKey(i.orderingKey())
                        .tenant(i.tenant());
                request.maxAttempts(i.kind().equals(POISON) ? poisonBudget(i.seq()) : localMaxAttempts);
                if (hungWithoutTimeLimitControl
                        && (i.kind().equals(WorkerMain.HUNG) || i.kind().equals(WorkerMain.HUNG_DEAF))
                        && i.seq() % 2 == 0) {
                    // CONTROL HUNG_WITHOUT_TIME_LIMIT: a limit of its own far beyond the hang
                    request.timeLimit(HUNG_CONTROL_TIME_LIMIT);
                }
                if (ghostControl && i.kind().equals(LOCAL) && i.orderingKey() == null) {
                    enqueueInItsOwnTransaction(request.build());
                } else {
                    outbox.enqueue(request.build());
                }
            }
        }
    }

    /**
     * A poison job's attempt budget: {@link WorkerMain#POISON_BUDGET}, but one more for an even seq
     * under the {@link Control#POISON_ATTEMPT_TOO_MANY} control (dead-lettered one attempt late).
     */
    private int poisonBudget(long seq) {
        // CONTROL POISON_ATTEMPT_TOO_MANY
        return poisonAttemptControl && seq % 2 == 0 ? WorkerMain.POISON_BUDGET + 1 : WorkerMain.POISON_BUDGET;
    }

    /** The ghost control's defect: the enqueue commits on its own connection, whatever the business transaction does. */
    private void enqueueInItsOwnTransaction(JobRequest request) {
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            outbox.enqueue(c, request);
            c.commit();
        } catch (SQLException e) {
            throw new IllegalStateException("ghost control: enqueue in its own transaction failed", e);
        }
    }

    /**
     * Under {@link Control#HUNG_WITHOUT_TIME_LIMIT}, the time limit of the hung jobs of an even seq: longer
     * than they hang, so nothing gives them up.
     */
    static final Duration HUNG_CONTROL_TIME_LIMIT = Duration.ofSeconds(60);

    private static void record(
            Connection side, long tx, List<Intent> intents, Boolean committed, long enqueuedMs, Long version)
            throws SQLException {
        try (PreparedStatement ps = side.prepareStatement("INSERT INTO chaos_intent"
                + " (seq, tx, kind, ordering_key, committed, enqueued_ms, tenant, idem_key, key_version)"
                + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
                + " ON CONFLICT (seq) DO NOTHING")) {
            for (Intent i : intents) {
                ps.setLong(1, i.seq());
                ps.setLong(2, tx);
                ps.setString(3, i.kind());
                ps.setString(4, i.orderingKey());
                if (committed == null) {
                    ps.setNull(5, Types.BOOLEAN);
                } else {
                    ps.setBoolean(5, committed);
                }
                ps.setLong(6, enqueuedMs);
                ps.setString(7, i.tenant());
                ps.setString(8, i.key());
                if (version == null) {
                    ps.setNull(9, Types.BIGINT);
                } else {
                    ps.setLong(9, version);
                }
                ps.addBatch();
            }
            ps.executeBatch();
        }
    }

    private static boolean orderRowExists(Connection c, long tx) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT 1 FROM chaos_order WHERE tx = ?")) {
            ps.setLong(1, tx);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next();
            }
        }
    }

    private void awaitBacklogBelow(long deadline) throws SQLException, InterruptedException {
        while (System.nanoTime() < deadline) {
            long live = retrying(Producer::liveJobs);
            if (live <= workload.maxBacklog()) {
                return;
            }
            backPressureWaits++;
            Thread.sleep(200);
        }
    }

    /** Committed webhooks to the rate-limited endpoint that the receiver has not applied yet. */
    static long limitedBacklog(Connection c) throws SQLException {
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT count(*) FROM chaos_intent i WHERE i.kind = '" + LIMITED
                        + "' AND i.committed AND NOT EXISTS (SELECT 1 FROM chaos_effect e WHERE e.seq = i.seq"
                        + " AND e.tx = i.tx)")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /**
     * Jobs live now, and of them those that could still end within {@code withinMillis}: running, or
     * due by then (database clock).
     */
    static long[] liveJobs(Connection c, long withinMillis) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT count(*), count(*) FILTER (WHERE state = 'running'"
                + " OR run_at <= now() + ? * interval '1 millisecond') FROM outbox_job")) {
            ps.setLong(1, withinMillis);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return new long[] {rs.getLong(1), rs.getLong(2)};
            }
        }
    }

    /** Committed webhooks of a named tenant to its endpoint that the receiver has not applied yet. */
    static long tenantBacklog(Connection c, String tenant) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT count(*) FROM chaos_intent i WHERE i.kind = ?"
                + " AND i.tenant = ? AND i.committed AND NOT EXISTS (SELECT 1 FROM chaos_effect e"
                + " WHERE e.seq = i.seq AND e.tx = i.tx)")) {
            ps.setString(1, WEBHOOK);
            ps.setString(2, tenant);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    static long liveJobs(Connection c) throws SQLException {
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT count(*) FROM outbox_job")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    @FunctionalInterface
    interface SqlWork<T> {
        T run(Connection c) throws SQLException;
    }

    /**
     * Runs {@code work} on a pooled auto-commit connection, again on a fresh one after a connection
     * error (the server restarting), for up to a minute.
     */
    <T> T retrying(SqlWork<T> work) throws SQLException, InterruptedException {
        for (int attempt = 1; ; attempt++) {
            try (Connection c = ds.getConnection()) {
                return work.run(c);
            } catch (SQLException e) {
                if (!connectionError(e) || attempt >= 60) {
                    throw e;
                }
                synchronized (this) {
                    retries++;
                }
                Thread.sleep(1_000);
            }
        }
    }

    /**
     * A lost or refused connection (SQL state class 08, 57P01-57P03 admin shutdown / crash / cannot
     * connect now, or the pool's timeout) anywhere in the cause chain.
     */
    static boolean connectionError(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLTransientConnectionException) {
                return true;
            }
            if (t instanceof SQLException sql && sql.getSQLState() != null) {
                String state = sql.getSQLState();
                if (state.startsWith("08") || state.startsWith("57P")) {
                    return true;
                }
            }
        }
        return false;
    }
}
