package dev.postbox.chaos;

import com.zaxxer.hikari.HikariDataSource;
import dev.postbox.JobRequest;
import dev.postbox.Outbox;
import dev.postbox.Postbox;
import dev.postbox.SchemaInstaller;
import dev.postbox.cron.ScheduleRegistry;
import dev.postbox.http.EndpointTimeouts;
import dev.postbox.http.HttpDelivery;
import dev.postbox.http.SsrfPolicy;
import dev.postbox.http.WebhookSecret;
import dev.postbox.http.webhook.Endpoint;
import dev.postbox.http.webhook.EndpointRegistry;
import dev.postbox.http.webhook.HttpDeliveryModule;
import dev.postbox.http.webhook.Webhooks;
import dev.postbox.testing.TestDatabase;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Runs one chaos experiment: a fresh database, K worker processes, a producer and a receiver in
 * this JVM, a fault injector driven by the seed; then drains, checks and writes the report.
 */
public final class ChaosDriver {

    private static final Logger log = LoggerFactory.getLogger(ChaosDriver.class);
    /** Kills a CI-sized run waits for before the producer may stop. */
    static final int MIN_KILLS = 20;
    /** A kill tick kills only while at least this many workers are up (see injectFaults). */
    static final int MIN_READY_TO_KILL = Integer.getInteger("chaos.minReadyToKill", 2);
    /** Endpoint of direct (keyed, signed) webhook sends, no rate limit. */
    static final String RX = "rx";
    /** Endpoint with a cluster-wide rate limit; the checker measures its arrival rate. */
    static final String RX_LIMITED = "rxlimited";

    static final double LIMITED_RATE = 10;
    static final int LIMITED_BURST = 5;
    /** Requests in a burst transaction to the limited endpoint, one burst every {@link #BURST_EVERY_MS}. */
    static final int LIMITED_BURST_SIZE = 40;

    static final long BURST_EVERY_MS = 5_000;
    /** Event type of published (fan-out) events, and its subscribers. */
    static final String EVENT_TYPE = "chaos.event";

    static final String KIND_WEBHOOK = "webhook";
    static final String KIND_LIMITED = "webhook-limited";
    static final String KIND_EVENT = "event";
    static final List<String> SUBSCRIBERS = List.of("sub1", "sub2", "sub3", "sub4", "sub5");

    private final ChaosConfig config;
    private final SplittableRandom faults;
    private final Timeline timeline = new Timeline();
    private final List<WorkerSlot> slots = new ArrayList<>();
    private final AtomicInteger workerKills = new AtomicInteger();
    private final AtomicInteger crashPointHalts = new AtomicInteger();
    private final AtomicInteger unexpectedExits = new AtomicInteger();
    private final AtomicInteger zombieStops = new AtomicInteger();
    private final AtomicInteger connectionKillRounds = new AtomicInteger();
    private final AtomicLong connectionsKilled = new AtomicLong();
    private final ScheduledExecutorService scheduler = Executors.newScheduledThreadPool(2, r -> {
        Thread t = new Thread(r, "chaos-faults");
        t.setDaemon(true);
        return t;
    });
    private volatile boolean faultsOn = true;
    private volatile boolean monitoring = true;
    private String workerJdbcUrl;
    private Path classArchive;
    private String workerClassPath;
    private String receiverUrl;
    private Path logDir;
    /** Soak only ({@code -Dchaos.ownServer=true}): the embedded server this driver started and may restart. */
    private OwnedPostgres ownServer;

    public ChaosDriver(ChaosConfig config) {
        this.config = config;
        this.faults = new SplittableRandom(config.seed());
    }

    /** Soak or ad-hoc run from the command line; {@code chaos.*} system properties apply. */
    public static void main(String[] args) throws Exception {
        ChaosResult result = new ChaosDriver(ChaosConfig.ci().withOverrides()).run();
        System.exit(result.valid() ? 0 : 1);
    }

    public ChaosResult run() throws Exception {
        log.info(
                "Chaos run '{}' with seed {} (replay with -Dchaos.seed={})",
                config.name(),
                config.seed(),
                config.seed());
        System.out.println("CHAOS SEED " + config.seed() + " (" + config.name() + ")");
        String adminUrl = config.adminJdbcUrl() != null
                ? config.adminJdbcUrl()
                : Boolean.getBoolean("chaos.ownServer") ? startOwnServer() : TestDatabase.adminUrl();
        String dbName = "chaos_" + Long.toHexString(config.seed() & 0xffffffL) + "_"
                + Long.toHexString(System.nanoTime() & 0xffffffL);
        try (Connection c = DriverManager.getConnection(adminUrl);
                Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE " + dbName);
        }
        String dbUrl = ChaosDatabases.withDatabase(adminUrl, dbName);
        logDir = config.reportDir().resolve(config.name() + "-workers");
        Files.createDirectories(logDir);
        try (var old = Files.list(logDir)) {
            for (Path p : old.filter(p -> p.toString().endsWith(".log")).toList()) {
                Files.delete(p); // markers are counted from these files: no leftovers from earlier runs
            }
        }
        try (HikariDataSource ds = ChaosDatabases.pool(dbUrl, "chaos-driver", 4);
                HikariDataSource receiverDs = ChaosDatabases.pool(dbUrl, "chaos-receiver", 8)) {
            new SchemaInstaller(ds).install();
            ChaosSchema.install(ds, config.receiverDedup());
            long receiverSeed = faults.nextLong();
            long producerSeed = faults.nextLong();
            Map<String, WebhookSecret> secrets = new LinkedHashMap<>();
            for (String name : endpointNames()) {
                secrets.put(name, WebhookSecret.generate());
            }
            AtomicReference<Postbox> engine = new AtomicReference<>();
            try (Receiver receiver = new Receiver(receiverDs, config, receiverSeed, secrets, Set.of(RX_LIMITED));
                    HttpDeliveryModule http = HttpDeliveryModule.builder(ds, engine::get)
                            .delivery(HttpDelivery.builder()
                                    .ssrfPolicy(SsrfPolicy.custom()
                                            .allow("127.0.0.1/32")
                                            .build())
                                    .build())
                            .build()) {
                registerEndpoints(http.endpoints(), receiver, secrets);
                receiverUrl = receiver.uri().toString();
                workerJdbcUrl = dbUrl;
                workerClassPath = WorkerClasspath.build(config.reportDir());
                classArchive = ensureClassArchive();
                long start = System.nanoTime();
                timeline.start(start);
                for (int i = 0; i < config.workers(); i++) {
                    WorkerSlot slot = new WorkerSlot(i + 1);
                    slots.add(slot);
                    slot.launch();
                }
                awaitWorkersReady();
                timeline.add("workers ready", "-", "");
                Thread monitor = new Thread(this::monitor, "chaos-monitor");
                monitor.setDaemon(true);
                monitor.start();
                Thread injector = new Thread(this::injectFaults, "chaos-injector");
                injector.setDaemon(true);
                Thread pgRestarter = new Thread(this::restartServerPeriodically, "chaos-pg-restarter");
                pgRestarter.setDaemon(true);
                // outbox only, never started: the producer's side of Postbox and delivery-http
                Postbox postbox = http.installInto(Postbox.builder(ds)).build();
                engine.set(postbox);
                Producer producer =
                        new Producer(ds, postbox.outbox(), http.webhooks(), new SplittableRandom(producerSeed));
                injector.start();
                pgRestarter.start();
                producer.run();
                long produced = System.nanoTime();
                faultsOn = false;
                injector.join(15_000);
                pgRestarter.join(120_000);
                scheduler.shutdownNow();
                resumeAll();
                timeline.add("producer stopped; faults off", "-", producer.committedIntents + " intents committed");
                try {
                    new ScheduleRegistry(ds).pause(WorkerMain.SCHEDULE);
                } catch (IllegalArgumentException e) {
                    log.warn("cron schedule not registered (no worker got ready?)", e);
                }
                boolean drained = drain(ds);
                long drainedAt = System.nanoTime();
                timeline.add(drained ? "drained" : "drain deadline passed", "-", "");
                monitoring = false;
                monitor.join(2_000);
                stopAll();
                WorkerLogs logs = WorkerLogs.read(logDir);
                ChaosResult result = new Checker(ds).check();
                result.put("receiverSignatureRejections", receiver.signatureRejections.get());
                result.put("seed", config.seed());
                result.put("name", config.name());
                result.put("durationSeconds", round((drainedAt - start) / 1e9));
                result.put("produceSeconds", round((produced - start) / 1e9));
                result.put("drainSeconds", round((drainedAt - produced) / 1e9));
                result.put("workers", config.workers());
                result.put("maxBacklog", config.maxBacklog());
                result.put("backPressureWaits", producer.backPressureWaits);
                result.put("workerStartMillisMedian", logs.medianStartMillis());
                result.put("workerSpringStartMillisMedian", logs.medianSpringMillis());
                result.put("workerIncarnations", logs.incarnations());
                result.put("workerKills", workerKills.get());
                result.put("crashPointHalts", crashPointHalts.get());
                result.put("crashPointMarkers", logs.crashPoints());
                result.put("unexpectedWorkerExits", unexpectedExits.get());
                result.put("zombieStops", zombieStops.get());
                result.put("zombiesFenced", logs.staleTokens());
                result.put("connectionKillRounds", connectionKillRounds.get());
                result.put("connectionsKilled", connectionsKilled.get());
                if (ownServer != null) {
                    result.put("pgRestarts", ownServer.restarts());
                    result.put("producerRetries", producer.retries);
                    result.put("ambiguousCommits", producer.ambiguousCommits);
                }
                result.put("receiverRequests", receiver.requests.get());
                result.put("receiver5xx", receiver.faults5xx.get());
                result.put("receiverTimeoutsAfterApply", receiver.faultsTimeout.get());
                result.put("receiver429", receiver.faults429.get());
                result.put("receiverResets", receiver.faultsReset.get());
                result.put("receiverDedup", config.receiverDedup());
                result.put("brokenFencing", config.brokenFencing());
                result.put(
                        "workerEngine",
                        "Spring Boot application on postbox-spring-boot-starter + postbox-delivery-http");
                result.put("limitedBursts", producer.bursts);
                result.finish();
                new Report(config, result, timeline).write(config.reportDir());
                log.info("Chaos run '{}' (seed {}): {}", config.name(), config.seed(), result.summary());
                return result;
            }
        } finally {
            monitoring = false;
            stopAll();
            scheduler.shutdownNow();
            if (!Boolean.getBoolean("chaos.keepDatabase")) {
                ChaosDatabases.dropDatabase(adminUrl, dbName);
            }
            stopOwnServer();
        }
    }

    // ---------------------------------------------------------------- owned server (soak)

    private String startOwnServer() throws IOException {
        ownServer = OwnedPostgres.start();
        return ownServer.adminUrl();
    }

    private void stopOwnServer() {
        if (ownServer != null) {
            ownServer.close();
        }
    }

    /** {@code chaos.pgRestartEverySeconds} > 0 and an owned server: stop and start it while faults are on. */
    private void restartServerPeriodically() {
        long everyMs = Long.getLong("chaos.pgRestartEverySeconds", 0) * 1000;
        if (everyMs <= 0) {
            return;
        }
        if (ownServer == null) {
            log.warn("chaos.pgRestartEverySeconds ignored: the harness does not own the server (chaos.ownServer)");
            return;
        }
        while (faultsOn) {
            long until = System.currentTimeMillis() + everyMs;
            while (faultsOn && System.currentTimeMillis() < until) {
                sleep(50);
            }
            if (faultsOn) {
                restartServer();
            }
        }
    }

    private void restartServer() {
        long downMillis = ownServer.restart();
        timeline.add("PostgreSQL restart", "-", "down " + downMillis + " ms, port " + ownServer.port());
    }

    static List<String> endpointNames() {
        List<String> names = new ArrayList<>(List.of(RX, RX_LIMITED));
        names.addAll(SUBSCRIBERS);
        return names;
    }

    /**
     * The receiver's endpoints, in outbox_endpoint: all keyed and signed, 1 s timeouts (the receiver's
     * "timeout after apply" takes longer), the regular retry budget; {@link #RX_LIMITED} rate-limited
     * cluster-wide; the subscribers receive every {@link #EVENT_TYPE} event.
     */
    private static void registerEndpoints(
            EndpointRegistry endpoints, Receiver receiver, Map<String, WebhookSecret> secrets) {
        EndpointTimeouts timeouts =
                new EndpointTimeouts(WorkerMain.HTTP_TIMEOUT, WorkerMain.HTTP_TIMEOUT, WorkerMain.HTTP_TIMEOUT);
        for (String name : endpointNames()) {
            Endpoint.Builder b = Endpoint.builder(name, receiver.url(name))
                    .secret(secrets.get(name))
                    .timeouts(timeouts)
                    .retryPolicy(WorkerMain.REGULAR);
            if (name.equals(RX_LIMITED) && !Boolean.getBoolean("chaos.rateLimitOff")) {
                // -Dchaos.rateLimitOff=true: a manual negative check; the checker must then count violations
                b.rateLimit(LIMITED_RATE, LIMITED_BURST);
            }
            if (SUBSCRIBERS.contains(name)) {
                b.subscribe(EVENT_TYPE);
            }
            endpoints.register(b.build());
        }
    }

    private static double round(double v) {
        return Math.round(v * 10) / 10.0;
    }

    // ---------------------------------------------------------------- producer

    /** Business transactions of mixed kinds; a share rolls back on purpose. */
    private final class Producer {
        private final HikariDataSource ds;
        private final Outbox outbox;
        private final Webhooks webhooks;
        private final SplittableRandom random;
        private final TransactionTemplate transactions;
        private final JdbcTemplate jdbc;
        long committedIntents;
        long rolledBackIntents;
        long backPressureWaits;
        long bursts;
        long retries;
        long ambiguousCommits;
        private long txId;
        private long seq;

        Producer(HikariDataSource ds, Outbox outbox, Webhooks webhooks, SplittableRandom random) {
            this.ds = ds;
            this.outbox = outbox;
            this.webhooks = webhooks;
            this.random = random;
            // Business transactions are Spring transactions on the DataSource, as in an application:
            // Outbox.enqueue and Webhooks.send/publish join them.
            this.transactions = new TransactionTemplate(new DataSourceTransactionManager(ds));
            this.jdbc = new JdbcTemplate(ds);
        }

        void run() throws SQLException, InterruptedException {
            long start = System.nanoTime();
            long deadline = start + config.maxProduceTime().toNanos();
            long intervalNanos = (long) (1e9 / config.txPerSecond());
            long next = start;
            long lastLog = start;
            long nextBurst = start + BURST_EVERY_MS * 1_000_000L;
            while (System.nanoTime() < deadline && !enough()) {
                long sleep = next - System.nanoTime();
                if (sleep > 0) {
                    TimeUnit.NANOSECONDS.sleep(sleep);
                }
                next += intervalNanos;
                boolean burst = System.nanoTime() >= nextBurst;
                if (burst) {
                    nextBurst += BURST_EVERY_MS * 1_000_000L;
                    bursts++;
                }
                businessTransaction(burst);
                if (txId % 25 == 0) {
                    awaitBacklogBelow(deadline);
                    next = Math.max(next, System.nanoTime());
                }
                if (System.nanoTime() - lastLog > 15_000_000_000L) {
                    lastLog = System.nanoTime();
                    log.info(
                            "producer: {} intents committed, {} rolled back; kills {}, halts {}",
                            committedIntents,
                            rolledBackIntents,
                            workerKills.get(),
                            crashPointHalts.get());
                }
            }
        }

        /**
         * Back-pressure: while more than {@code chaos.maxBacklog} jobs are live, wait. The workers'
         * capacity, not the producer's pace, then sets the run's length, and the drain stays short.
         */
        private void awaitBacklogBelow(long deadline) throws SQLException, InterruptedException {
            while (System.nanoTime() < deadline) {
                long live = retrying(c -> {
                    try (Statement s = c.createStatement();
                            ResultSet rs = s.executeQuery("SELECT count(*) FROM outbox_job")) {
                        rs.next();
                        return rs.getLong(1);
                    }
                });
                if (live <= config.maxBacklog()) {
                    return;
                }
                backPressureWaits++;
                Thread.sleep(200);
            }
        }

        /**
         * Sizing: enough committed intents, the zombie stops the run asks for, and for a CI-sized
         * run (>= 10,000 intents) at least {@link #MIN_KILLS} SIGKILLs. 0 intents = duration only.
         */
        private boolean enough() {
            if (config.minCommittedIntents() <= 0) {
                return false;
            }
            if (committedIntents < config.minCommittedIntents() || zombieStops.get() < config.minZombieStops()) {
                return false;
            }
            return config.minCommittedIntents() < 10_000 || workerKills.get() >= MIN_KILLS;
        }

        /** One intent: its key (effects), the Postbox job's key, kind, ordering key and seq. */
        private record Intent(String key, String jobKey, String kind, String orderingKey, long seq) {}

        /**
         * One business transaction: a chaos_order row plus 1-4 intents of mixed kinds (or, for a
         * burst, {@link #LIMITED_BURST_SIZE} webhooks to the rate-limited endpoint), committed or
         * rolled back on purpose.
         */
        private void businessTransaction(boolean burst) throws SQLException, InterruptedException {
            long tx = ++txId;
            boolean rollback = random.nextDouble() < config.rollbackShare();
            int n = burst ? LIMITED_BURST_SIZE : 1 + random.nextInt(4);
            List<Intent> intents = new ArrayList<>(n);
            for (int j = 0; j < n; j++) {
                String key = "i-" + tx + "-" + j;
                long s = ++seq;
                if (burst) {
                    intents.add(new Intent(RX_LIMITED + ":" + key, RX_LIMITED + ":" + key, KIND_LIMITED, null, s));
                    continue;
                }
                double k = random.nextDouble();
                if (k < config.poisonShare()) {
                    intents.add(new Intent(key, key, WorkerMain.POISON, null, s));
                } else if (k < 0.33) {
                    intents.add(new Intent(key, key, WorkerMain.LOCAL, null, s));
                } else if (k < 0.60) {
                    intents.add(new Intent(RX + ":" + key, RX + ":" + key, KIND_WEBHOOK, null, s));
                } else if (k < 0.65) {
                    String event = "e-" + tx + "-" + j;
                    intents.add(new Intent(event, "event:" + event, KIND_EVENT, null, s));
                } else if (k < 0.82) {
                    intents.add(new Intent(key, key, WorkerMain.LOCAL, "ordl-" + random.nextInt(16), s));
                } else {
                    intents.add(
                            new Intent(RX + ":" + key, RX + ":" + key, KIND_WEBHOOK, "ordw-" + random.nextInt(16), s));
                }
            }
            Boolean committed = null;
            long[] enqueuedMs = {System.currentTimeMillis()};
            boolean[] callbackDone = {false};
            for (int attempt = 1; ; attempt++) {
                callbackDone[0] = false;
                try {
                    transactions.executeWithoutResult(status -> {
                        jdbc.update("INSERT INTO chaos_order (tx_id, intents) VALUES (?, ?)", tx, intents.size());
                        for (Intent i : intents) {
                            enqueue(tx, i);
                        }
                        enqueuedMs[0] = System.currentTimeMillis();
                        if (rollback) {
                            status.setRollbackOnly();
                        }
                        callbackDone[0] = true;
                    });
                    committed = !rollback;
                } catch (RuntimeException e) {
                    if (callbackDone[0] && !rollback) {
                        committed = null; // the commit failed: outcome resolved later from chaos_order
                    } else if (!callbackDone[0] && connectionError(e) && attempt < 60) {
                        // failed before commit (e.g. PostgreSQL restarting): nothing committed, run it again
                        retries++;
                        Thread.sleep(500);
                        continue;
                    } else {
                        log.warn("business transaction {} failed before commit; rolled back", tx, e);
                        committed = false;
                    }
                }
                break;
            }
            // Recorded outside the business transaction. An unknown outcome (the commit threw: it may or
            // may not have committed) stays NULL here; the checker decides it from the chaos_order row.
            Boolean outcome = committed;
            retrying(side -> {
                insertIntents(side, tx, intents, outcome, enqueuedMs[0]);
                return null;
            });
            if (committed == null) {
                ambiguousCommits++;
                // count only what committed: read back the order row once the server answers again
                committed = retrying(c -> {
                    try (PreparedStatement ps = c.prepareStatement("SELECT 1 FROM chaos_order WHERE tx_id = ?")) {
                        ps.setLong(1, tx);
                        try (ResultSet rs = ps.executeQuery()) {
                            return rs.next();
                        }
                    }
                });
                log.info("business transaction {}: commit outcome unknown, order row present: {}", tx, committed);
            }
            if (committed) {
                committedIntents += intents.size();
            } else {
                rolledBackIntents += intents.size();
            }
        }

        private void insertIntents(Connection side, long tx, List<Intent> intents, Boolean committed, long enqueuedMs)
                throws SQLException {
            try (PreparedStatement ps = side.prepareStatement("INSERT INTO chaos_intent"
                    + " (intent_key, tx_id, kind, ordering_key, seq, committed, enqueued_ms, job_key)"
                    + " VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (intent_key) DO NOTHING")) {
                for (Intent i : intents) {
                    ps.setString(1, i.key());
                    ps.setLong(2, tx);
                    ps.setString(3, i.kind());
                    ps.setString(4, i.orderingKey());
                    ps.setLong(5, i.seq());
                    if (committed == null) {
                        ps.setNull(6, java.sql.Types.BOOLEAN);
                    } else {
                        ps.setBoolean(6, committed);
                    }
                    ps.setLong(7, enqueuedMs);
                    ps.setString(8, i.jobKey());
                    ps.addBatch();
                }
                ps.executeBatch();
            }
        }

        /**
         * Runs {@code work} on a pooled auto-commit connection, again on a fresh one after a connection
         * error (the server restarting), for up to a minute.
         */
        private <T> T retrying(SqlWork<T> work) throws SQLException, InterruptedException {
            for (int attempt = 1; ; attempt++) {
                try (Connection c = ds.getConnection()) {
                    return work.run(c);
                } catch (SQLException e) {
                    if (!connectionError(e) || attempt >= 60) {
                        throw e;
                    }
                    retries++;
                    Thread.sleep(1_000);
                }
            }
        }

        /** Enqueues one intent in the current (Spring) business transaction. */
        private void enqueue(long tx, Intent i) {
            Map<String, Object> payload = new LinkedHashMap<>();
            payload.put("seq", i.seq());
            payload.put("tx", tx);
            if (i.orderingKey() != null) {
                payload.put("ok", i.orderingKey());
            }
            switch (i.kind()) {
                case KIND_WEBHOOK, KIND_LIMITED -> {
                    String endpoint = i.kind().equals(KIND_LIMITED) ? RX_LIMITED : RX;
                    String key = i.key().substring(endpoint.length() + 1);
                    if (i.orderingKey() == null) {
                        webhooks.send(endpoint, payload, key);
                    } else {
                        // Webhooks.send has no ordering key: the same validated request, plus the key.
                        outbox.enqueue(webhooks.delivery(endpoint, payload, key, Map.of()).toBuilder()
                                .orderingKey(i.orderingKey())
                                .build());
                    }
                }
                case KIND_EVENT -> {
                    payload.put("event", i.key());
                    webhooks.publish(EVENT_TYPE, payload, i.key());
                }
                default ->
                    outbox.enqueue(JobRequest.builder(i.kind())
                            .payload(payload)
                            .idempotencyKey(i.key())
                            .orderingKey(i.orderingKey())
                            .maxAttempts(
                                    i.kind().equals(WorkerMain.POISON)
                                            ? WorkerMain.POISON_BUDGET
                                            : WorkerMain.REGULAR_BUDGET)
                            .build());
            }
        }
    }

    @FunctionalInterface
    private interface SqlWork<T> {
        T run(Connection c) throws SQLException;
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

    // ---------------------------------------------------------------- faults

    private void injectFaults() {
        while (faultsOn) {
            long waitMs = config.killMin().toMillis()
                    + faults.nextLong(
                            config.killMax().toMillis() - config.killMin().toMillis() + 1);
            long until = System.currentTimeMillis() + waitMs;
            while (faultsOn && System.currentTimeMillis() < until) {
                sleep(50);
            }
            if (!faultsOn) {
                return;
            }
            try {
                // Kill only while another worker is up too: a kill is meant to hit a worker holding
                // claims, and the run must keep making progress while the victim restarts.
                WorkerSlot victim = readyCount() >= MIN_READY_TO_KILL ? pick(null) : null;
                if (victim != null) {
                    victim.kill();
                }
                if (faults.nextDouble() < config.connectionKillProbability()) {
                    WorkerSlot target = pick(victim);
                    if (target != null) {
                        terminateBackends(target);
                    }
                }
                if (faults.nextDouble() < config.stopProbability()) {
                    WorkerSlot target = pick(victim);
                    if (target != null) {
                        long stopMs = config.visibilityTimeout().toMillis() + 1_000 + faults.nextLong(1_500);
                        target.stop(stopMs);
                    }
                }
            } catch (Exception e) {
                log.warn("fault injection step failed", e);
            }
        }
    }

    /**
     * A random worker that is up (its engine started), not stopped, other than {@code except}. A
     * JVM still starting has no claims yet, so killing it tests nothing about Postbox.
     */
    private int readyCount() {
        int n = 0;
        for (WorkerSlot s : slots) {
            if (!s.stopped && s.ready()) {
                n++;
            }
        }
        return n;
    }

    private void awaitWorkersReady() {
        long deadline = System.nanoTime() + 120_000_000_000L;
        while (System.nanoTime() < deadline && readyCount() < slots.size()) {
            sleep(100);
        }
    }

    /**
     * Worker JVM options, shared by the workers and the class-data-sharing training run. Start-up
     * is CPU-bound (class loading of a Spring Boot application on 2 busy cores): C1 only, serial
     * GC, and an AppCDS archive of the worker's classes when there is one.
     */
    private List<String> workerJvm() {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> cmd = new ArrayList<>(List.of(
                java,
                "-Xmx128m",
                "-Xss512k",
                "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1",
                "-XX:-UsePerfData",
                "-Xlog:cds=off",
                "-Xlog:cds+dynamic=off",
                "-Dlogback.configurationFile=chaos-logback.xml",
                "-Dlogback.statusListenerClass=ch.qos.logback.core.status.NopStatusListener"));
        if (classArchive != null) {
            cmd.add("-XX:SharedArchiveFile=" + classArchive);
        }
        return cmd;
    }

    /**
     * An AppCDS archive of a started worker's classes ({@code -XX:ArchiveClassesAtExit}), made once
     * per test classpath by one worker that exits right after READY, then used by every worker start
     * ({@code chaos.classArchive=false} turns it off). Returns null when it could not be made.
     */
    private Path ensureClassArchive() {
        if (!Boolean.parseBoolean(System.getProperty("chaos.classArchive", "true"))) {
            return null;
        }
        String classPath = workerClassPath;
        String id = Integer.toHexString((System.getProperty("java.home") + classPath).hashCode());
        Path archive = config.reportDir().resolve("chaos-worker-" + id + ".jsa").toAbsolutePath();
        if (Files.isRegularFile(archive)) {
            return archive;
        }
        long t0 = System.nanoTime();
        List<String> cmd = workerJvm();
        cmd.add("-XX:ArchiveClassesAtExit=" + archive);
        cmd.addAll(List.of(
                "-cp",
                classPath,
                "-Dchaos.jdbcUrl=" + workerJdbcUrlFor("chaos-cds-training"),
                "-Dchaos.workerId=chaos-cds-training",
                "-Dchaos.receiverUrl=" + receiverUrl,
                "-Dchaos.seed=0",
                "-Dchaos.exitAfterReady=true",
                WorkerMain.class.getName()));
        try {
            Path out = logDir.resolve("cds-training.out");
            Process p = new ProcessBuilder(cmd)
                    .redirectErrorStream(true)
                    .redirectOutput(out.toFile())
                    .start();
            if (!p.waitFor(180, TimeUnit.SECONDS)) {
                p.destroyForcibly();
            }
            log.info(
                    "worker class archive {}: {} in {} ms",
                    archive,
                    Files.isRegularFile(archive) ? "created" : "NOT created",
                    (System.nanoTime() - t0) / 1_000_000);
        } catch (IOException | InterruptedException e) {
            log.warn("worker class archive training failed", e);
        }
        return Files.isRegularFile(archive) ? archive : null;
    }

    private WorkerSlot pick(WorkerSlot except) {
        List<WorkerSlot> candidates = new ArrayList<>();
        for (WorkerSlot s : slots) {
            if (s != except && !s.stopped && s.ready()) {
                candidates.add(s);
            }
        }
        return candidates.isEmpty() ? null : candidates.get(faults.nextInt(candidates.size()));
    }

    private void terminateBackends(WorkerSlot target) {
        try (Connection c = DriverManager.getConnection(workerJdbcUrlFor("chaos-admin"));
                PreparedStatement ps = c.prepareStatement("SELECT count(*) FILTER (WHERE pg_terminate_backend(pid))"
                        + " FROM pg_stat_activity WHERE application_name = ? AND datname = current_database()")) {
            ps.setString(1, target.applicationName());
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                long n = rs.getLong(1);
                connectionsKilled.addAndGet(n);
                connectionKillRounds.incrementAndGet();
                timeline.add("pg_terminate_backend", target.name(), n + " connection(s)");
            }
        } catch (SQLException e) {
            log.warn("pg_terminate_backend for {} failed", target.name(), e);
        }
    }

    private void monitor() {
        while (monitoring) {
            for (WorkerSlot s : slots) {
                s.checkExit();
            }
            sleep(100);
        }
    }

    private void resumeAll() {
        for (WorkerSlot s : slots) {
            s.resume();
        }
    }

    private boolean drain(HikariDataSource ds) throws SQLException, InterruptedException {
        long deadline = System.nanoTime() + config.drainTimeout().toNanos();
        while (System.nanoTime() < deadline) {
            try (Connection c = ds.getConnection();
                    Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SELECT count(*) FROM outbox_job")) {
                rs.next();
                if (rs.getLong(1) == 0) {
                    return true;
                }
            }
            Thread.sleep(500);
        }
        return false;
    }

    private void stopAll() {
        for (WorkerSlot s : slots) {
            s.shutdown();
        }
    }

    // ---------------------------------------------------------------- workers

    /** One worker position; each (re)start is a new incarnation with its own worker id and log. */
    private final class WorkerSlot {
        private final int index;
        private Process process;
        private int incarnation;
        private final SplittableRandom random;
        private Path logFile;
        private boolean ready;
        private volatile boolean stopped;
        private boolean shuttingDown;

        WorkerSlot(int index) {
            this.index = index;
            this.random = faults.split();
        }

        String name() {
            return "w" + index;
        }

        String applicationName() {
            return "chaos-worker-" + index;
        }

        synchronized boolean alive() {
            return process != null && process.isAlive();
        }

        /** Alive and its engine started (the worker printed READY). */
        synchronized boolean ready() {
            if (!alive()) {
                return false;
            }
            if (!ready) {
                try {
                    ready = Files.readString(logFile, StandardCharsets.ISO_8859_1)
                            .contains("READY ");
                } catch (IOException e) {
                    return false;
                }
            }
            return ready;
        }

        synchronized void launch() throws IOException {
            incarnation++;
            String workerId = "chaos-w" + index + "-i" + incarnation;
            double crash = random.nextDouble() < config.crashPointShare() ? config.crashPointProbability() : 0;
            // The broken-fencing control must see a re-run after an unfenced effect commit in every
            // run, not only when a zombie happens to hold local jobs: halting after the handler does
            // exactly that (expected about five local duplicates per control run).
            double afterHandler = config.brokenFencing() ? Math.max(crash, 0.02) : crash;
            long seed = random.nextLong();
            List<String> cmd = workerJvm();
            cmd.addAll(List.of(
                    "-cp",
                    workerClassPath,
                    "-Dchaos.jdbcUrl=" + workerJdbcUrlFor(applicationName()),
                    "-Dchaos.workerId=" + workerId,
                    "-Dchaos.receiverUrl=" + receiverUrl,
                    "-Dchaos.seed=" + seed,
                    "-Dchaos.brokenFencing=" + config.brokenFencing(),
                    "-Dchaos.visibilityMs=" + config.visibilityTimeout().toMillis(),
                    "-Dchaos.heartbeatMs=" + config.heartbeatInterval().toMillis(),
                    "-Dchaos.crash.afterClaim=" + crash,
                    "-Dchaos.crash.afterHandler=" + afterHandler,
                    "-Dchaos.crash.duringCommit=" + crash,
                    WorkerMain.class.getName()));
            logFile = logDir.resolve(workerId + ".log");
            ready = false;
            process = new ProcessBuilder(cmd)
                    .redirectErrorStream(true)
                    .redirectOutput(logFile.toFile())
                    .start();
            timeline.add(
                    "start",
                    name(),
                    workerId + " pid " + process.pid() + (crash > 0 ? " crash points p=" + crash : ""));
        }

        /** SIGKILL, then restart. */
        synchronized void kill() throws IOException, InterruptedException {
            if (process == null || !process.isAlive()) {
                return;
            }
            process.destroyForcibly();
            process.waitFor(10, TimeUnit.SECONDS);
            workerKills.incrementAndGet();
            timeline.add("SIGKILL", name(), "pid " + process.pid());
            launch();
        }

        /** SIGSTOP for longer than the lease, SIGCONT later: a zombie that must be fenced. */
        synchronized void stop(long millis) throws IOException, InterruptedException {
            if (process == null || !process.isAlive() || stopped) {
                return;
            }
            signal("STOP", process.pid());
            stopped = true;
            zombieStops.incrementAndGet();
            timeline.add("SIGSTOP", name(), "pid " + process.pid() + " for " + millis + " ms");
            Process target = process;
            scheduler.schedule(
                    () -> {
                        synchronized (WorkerSlot.this) {
                            if (stopped && process == target) {
                                resume();
                            }
                        }
                    },
                    millis,
                    TimeUnit.MILLISECONDS);
        }

        synchronized void resume() {
            if (!stopped) {
                return;
            }
            stopped = false;
            try {
                signal("CONT", process.pid());
                timeline.add("SIGCONT", name(), "pid " + process.pid());
            } catch (IOException | InterruptedException e) {
                log.warn("SIGCONT of {} failed", name(), e);
            }
        }

        synchronized void checkExit() {
            if (shuttingDown || process == null || process.isAlive()) {
                return;
            }
            int code = process.exitValue();
            if (code == CrashPoints.HALT_STATUS) {
                crashPointHalts.incrementAndGet();
                timeline.add("crash-point halt", name(), "pid " + process.pid());
            } else {
                unexpectedExits.incrementAndGet();
                timeline.add("unexpected exit " + code, name(), "pid " + process.pid());
            }
            try {
                launch();
            } catch (IOException e) {
                log.error("restarting {} failed", name(), e);
            }
        }

        synchronized void shutdown() {
            shuttingDown = true;
            if (process == null) {
                return;
            }
            if (stopped) {
                resume();
            }
            process.destroy();
            try {
                if (!process.waitFor(10, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                    process.waitFor(5, TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private static void signal(String signal, long pid) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid))
                .redirectErrorStream(true)
                .start();
        kill.waitFor(5, TimeUnit.SECONDS);
    }

    private String workerJdbcUrlFor(String applicationName) {
        return workerJdbcUrl + (workerJdbcUrl.contains("?") ? "&" : "?") + "ApplicationName=" + applicationName;
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The fault timeline, in offsets from the run's start. */
    static final class Timeline {
        record Event(long offsetMillis, String what, String worker, String detail) {}

        private final List<Event> events = new ArrayList<>();
        private long startNanos;

        void start(long nanos) {
            startNanos = nanos;
        }

        synchronized void add(String what, String worker, String detail) {
            events.add(new Event((System.nanoTime() - startNanos) / 1_000_000, what, worker, detail));
        }

        synchronized List<Event> events() {
            return List.copyOf(events);
        }
    }

    static String lower(String s) {
        return s.toLowerCase(Locale.ROOT);
    }
}
