package dev.postbox.chaos;

import com.zaxxer.hikari.HikariDataSource;
import dev.postbox.JobRequest;
import dev.postbox.Postbox;
import dev.postbox.SchemaInstaller;
import dev.postbox.chaos.fleet.Incarnation;
import dev.postbox.chaos.fleet.RunDatabase;
import dev.postbox.chaos.fleet.WorkerFleet;
import dev.postbox.chaos.fleet.WorkerJvm;
import dev.postbox.chaos.fleet.WorkerLogs;
import dev.postbox.chaos.fleet.WorkerSlot;
import dev.postbox.http.HttpDelivery;
import dev.postbox.http.signing.WebhookSecret;
import dev.postbox.http.ssrf.SsrfPolicy;
import dev.postbox.http.webhook.HttpDeliveryModule;
import dev.postbox.testing.TestDatabase;
import java.io.IOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one chaos experiment: a fresh database, K worker processes (and the cron node), a producer
 * and a receiver in this JVM, the weather from the seed; then drains, checks and writes the report
 * ({@code <name>.json}, {@code <name>.md}).
 */
public final class ChaosRun {

    private static final Logger log = LoggerFactory.getLogger(ChaosRun.class);
    private static final String LOGBACK = "chaos-logback.xml";

    private final ChaosConfig config;
    private final SplittableRandom random;
    private final CrashPlanner crashPlanner;
    private final Timeline timeline = new Timeline();
    private final AtomicInteger unexpectedExits = new AtomicInteger();
    /** The run's broker destinations; null in a run without broker traffic (plain-engine workers). */
    private Brokers brokers;
    /** Under {@link Control#WORKER_EXITS}: whether the one incarnation that exits has been launched. */
    private final AtomicBoolean workerExitPlanned = new AtomicBoolean();

    /** Under {@link Control#WORKER_EXITS}: how long after READY w1's first incarnation halts. */
    static final long CONTROL_EXIT_AFTER_MS = 4_000;

    public ChaosRun(ChaosConfig config) {
        this.config = config;
        // before the run, not after ten minutes of it
        config.controls().forEach(control -> ChaosResult.requireJudged(control.counter()));
        this.random = new SplittableRandom(config.seed());
        this.crashPlanner = new CrashPlanner(config.faults(), random.split(), brokerControls());
    }

    /** A run from the command line: the CI profile, or the soak with {@code -Dchaos.profile=soak}; {@code chaos.*} overrides apply. */
    public static void main(String[] args) throws Exception {
        ChaosConfig profile =
                "soak".equals(System.getProperty("chaos.profile")) ? ChaosConfig.soak() : ChaosConfig.ci();
        ChaosResult result = new ChaosRun(profile.withSystemProperties()).run();
        System.exit(result.valid() && result.coverageGaps().isEmpty() ? 0 : 1);
    }

    public ChaosResult run() throws Exception {
        log.info(
                "Chaos run '{}' with seed {} (replay with -Dchaos.seed={})",
                config.name(),
                config.seed(),
                config.seed());
        System.out.println("CHAOS SEED " + config.seed() + " (" + config.name() + ")");
        // An engine defect of enqueue acts in this JVM (the producer's Postbox): on for this run only.
        String producerSideControl = config.controls().contains(Control.TENANT_BLIND_KEYS)
                ? Control.TENANT_BLIND_KEYS.systemProperty()
                : null;
        if (producerSideControl != null) {
            System.setProperty(producerSideControl, "true");
        }
        try {
            return runOnServer();
        } finally {
            if (producerSideControl != null) {
                System.clearProperty(producerSideControl);
            }
        }
    }

    private ChaosResult runOnServer() throws Exception {
        ChaosConfig.Server server = config.server();
        if (withBrokers()) {
            // the Kafka broker starts while the database is made (Brokers.create waits for it)
            java.util.concurrent.CompletableFuture.runAsync(Brokers::kafkaBootstrap);
        }
        try (OwnedPostgres owned = server.jdbcUrl() == null && server.own() ? OwnedPostgres.start() : null) {
            String adminUrl = server.jdbcUrl() != null
                    ? server.jdbcUrl()
                    : owned != null ? owned.adminUrl() : TestDatabase.adminUrl();
            try (RunDatabase db = RunDatabase.create(adminUrl, "chaos");
                    HikariDataSource ds = db.pool("chaos-driver", 4 + Producer.KEYED_THREADS);
                    HikariDataSource receiverDs = db.pool("chaos-receiver", 8)) {
                new SchemaInstaller(ds).install();
                ChaosSchema.install(ds);
                return run(db, ds, receiverDs, owned);
            }
        }
    }

    private ChaosResult run(RunDatabase db, HikariDataSource ds, HikariDataSource receiverDs, OwnedPostgres owned)
            throws Exception {
        Map<String, WebhookSecret> secrets = ChaosEndpoints.newSecrets();
        try (Brokers brokerDestinations = withBrokers() ? Brokers.create(config.name()) : null;
                Receiver receiver = new Receiver(
                        receiverDs,
                        config.receiver(),
                        random.nextLong(),
                        secrets,
                        java.util.Set.of(ChaosEndpoints.RX_LIMITED));
                HttpDeliveryModule http = HttpDeliveryModule.builder(ds)
                        .secretCipher(ChaosEndpoints.CIPHER)
                        .delivery(HttpDelivery.builder()
                                .ssrfPolicy(SsrfPolicy.custom()
                                        .allow("127.0.0.1/32")
                                        .build())
                                .build())
                        .build()) {
            brokers = brokerDestinations;
            ChaosEndpoints.register(http.endpoints(), receiver, secrets);
            // The producer's side of Postbox and delivery-http; never started.
            Postbox postbox = Postbox.builder(ds).module(http).build();
            for (String tenant : ChaosTenants.NAMED) {
                postbox.admin().forTenant(tenant).setWebhookRate(ChaosTenants.WEBHOOK_RATE, ChaosTenants.WEBHOOK_BURST);
            }
            Path logDir = config.reportDir().resolve(config.name() + "-workers");
            WorkerJvm jvm = WorkerJvm.forTestClasses(config.reportDir());
            if (Boolean.parseBoolean(System.getProperty("chaos.classArchive", "true"))) {
                java.nio.file.Files.createDirectories(logDir);
                jvm = jvm.withClassArchive(
                        config.reportDir(),
                        LOGBACK,
                        workerProperties(db, "chaos-cds-training", null),
                        WorkerMain.class.getName(),
                        logDir.resolve("cds-training.out"));
            }
            Producer producer = new Producer(config, ds, postbox.outbox(), http.webhooks(), brokers, random.split());
            CronDeploys cron = new CronDeploys(ds);
            boolean mixed = config.workload().mixedKinds();
            if (mixed) {
                cron.register();
            }
            long started = System.nanoTime();
            if (config.workload().preloadIntents() > 0) {
                postbox.admin().pause(JobRequest.DEFAULT_QUEUE); // the backlog waits for every worker
                producer.preload(config.workload().preloadIntents());
            }
            WorkerJvm workerJvm = jvm;
            try (WorkerFleet cronNode = mixed ? startCronNode(db, workerJvm, logDir) : null;
                    WorkerFleet fleet = WorkerFleet.start(
                            "chaos",
                            config.workload().workers(),
                            logDir,
                            (slot, incarnation) -> workerJvm.command(
                                    LOGBACK,
                                    workerProperties(db, incarnation.workerId(), slot),
                                    WorkerMain.class.getName()),
                            new Listener())) {
                if (!fleet.awaitAllReady(Duration.ofSeconds(120))) {
                    throw new IllegalStateException("workers did not start within 120 s: see " + logDir);
                }
                long backlog = producer.retrying(Producer::liveJobs);
                postbox.admin().resume(JobRequest.DEFAULT_QUEUE);
                timeline.add("workers ready; faults on", "-", backlog + " jobs live");
                FaultInjector faults =
                        new FaultInjector(config, fleet, random.split(), db.url("chaos-admin"), owned, timeline);
                faults.start();
                Thread flipper = mixed ? flipCronDefinitions(cron) : null;
                long produceStart = System.nanoTime();
                if (config.workload().txPerSecond() > 0) {
                    producer.run(enough(producer, faults, () -> stopsFencedSoFar(fleet, logDir, ds)));
                } else {
                    awaitStormEnd(producer);
                }
                long produced = System.nanoTime();
                faults.stop();
                if (flipper != null) {
                    flipper.interrupt();
                    flipper.join(5_000);
                    cron.pause();
                }
                timeline.add("producer stopped; faults off", "-", producer.committedIntents + " intents committed");
                String drained = awaitDrained(producer, config.workload().drainTimeout());
                long drainedAt = System.nanoTime();
                timeline.add(drained, "-", "");
                fleet.close();
                Map<String, Long> brokerMessagesRead = brokers == null ? Map.of() : brokers.consumeInto(ds);
                List<Incarnation> incarnations = fleet.incarnations();
                WorkerLogs logs = WorkerLogs.read(logDir);
                Checker checker = new Checker(
                        ds, cron, config.engine().visibilityTimeout().toMillis());
                ChaosResult result = checker.check(logs, incarnations);
                result.put("rateLimitViolationWindows", timeline.before(checker.rateLimitViolationWindows(), 5));
                result.put(
                        "tenantRateLimitViolationWindows",
                        timeline.before(checker.tenantRateLimitViolationWindows(), 5));
                FencedZombies.Count zombies = FencedZombies.count(incarnations, logs, ds);
                result.put("seed", config.seed());
                result.put("name", config.name());
                result.put("controls", config.controls().toString());
                result.put("durationSeconds", seconds(drainedAt - started));
                result.put("produceSeconds", seconds(produced - produceStart));
                result.put("drainSeconds", seconds(drainedAt - produced));
                result.put("workers", config.workload().workers());
                result.put("engine", config.engine().toString());
                result.put("backlogAtFirstKill", backlog);
                result.put("producerFailures", producer.failures);
                result.put("keyedTransactions", producer.keyedTransactions);
                result.put("hungIntentsProduced", producer.hungIntents);
                result.put("backPressureWaits", producer.backPressureWaits);
                result.put("limitedBursts", producer.bursts);
                result.put("limitedBurstsSkipped", producer.burstsSkipped);
                result.put("tenantBursts", producer.tenantBursts);
                result.put("tenantBurstsSkipped", producer.tenantBurstsSkipped);
                result.put("receiverSignatureRejections", receiver.signatureRejections.get());
                result.put("workerStartMillisMedian", logs.medianStartMillis());
                result.put("workerSpringStartMillisMedian", logs.medianSpringMillis());
                result.put("workerIncarnations", (long) incarnations.size());
                result.put("workerKills", (long) faults.kills.get());
                result.put("crashPointIncarnationsArmed", (long) crashPlanner.armed());
                result.put("crashPointHalts", crashPlanner.haltsByPoint());
                result.put("crashPointMarkers", logs.crashPoints());
                if (brokers != null) {
                    result.put("crashPointHaltsAfterBrokerAck", crashPlanner.haltsAfterBrokerAck());
                    result.put("brokerMessagesRead", brokerMessagesRead);
                }
                result.put("unexpectedWorkerExits", (long) unexpectedExits.get());
                result.put("zombieStops", zombies.stops());
                result.put("zombieStopsFenced", zombies.stopsFenced());
                result.put("fencedCompletions", zombies.fencedCompletions());
                result.put("staleTokenRejectionsReportedByEngine", logs.staleTokens());
                if (config.controls().contains(Control.UNFENCED_COMPLETION)) {
                    result.values().putAll(FencedZombies.duplicatesByZombies(incarnations, ds));
                }
                result.put("connectionKillRounds", (long) faults.connectionKillRounds.get());
                result.put("connectionsKilled", faults.connectionsKilled.get());
                if (owned != null) {
                    result.put("pgRestarts", (long) owned.restarts());
                    result.put("producerRetries", producer.retries);
                    result.put("ambiguousCommits", producer.ambiguousCommits);
                }
                result.put("receiver5xx", receiver.faults5xx.get());
                result.put("receiverTimeoutsAfterApply", receiver.faultsTimeout.get());
                result.put("receiver429", receiver.faults429.get());
                result.put("receiverResets", receiver.faultsReset.get());
                result.coverageGaps(CoverageCheck.gaps(config, result));
                result.finish();
                new Report(config, result, timeline).write(config.reportDir());
                log.info("Chaos run '{}' (seed {}): {}", config.name(), config.seed(), result.summary());
                return result;
            }
        }
    }

    /**
     * The producer stops once its minimum of intents is committed and, for a profile with minimum
     * coverage, once the faults it can count while running (kills, halts at every crash point,
     * zombie stops) have happened, and under a broker relay control once every broker has had a halt
     * after its acknowledgement; at {@code maxProduceTime} in any case.
     */
    private BooleanSupplier enough(Producer producer, FaultInjector faults, LongSupplier stopsFencedSoFar) {
        ChaosConfig.Coverage min = config.coverage();
        long[] nextFencedCount = {0};
        int minIntents = Math.max(config.workload().minCommittedIntents(), min.committedIntents());
        long preloaded = producer.committedIntents; // a preload is a backlog, not the run's production
        return () -> {
            if (config.workload().minCommittedIntents() <= 0 || producer.committedIntents - preloaded < minIntents) {
                return false;
            }
            if (!crashPlanner.everyPointHalted(min.haltsPerCrashPoint())) {
                return false;
            }
            // the broker relay controls' redeliveries and losses come from these halts
            boolean brokerHaltsNeeded = min.haltsPerCrashPoint() > 0 || brokerControls();
            if (brokers != null && brokerHaltsNeeded && !crashPlanner.everyBrokerHaltedAfterAck()) {
                return false;
            }
            if (faults.kills.get() < min.kills() || faults.zombieStops.get() < min.zombieStopsFenced()) {
                return false;
            }
            if (min.zombieStopsFenced() <= 0) {
                return true;
            }
            // Fenced zombie stops counted as the checker counts them (worker logs and effects so far),
            // at most every 5 s: the share of stops that freeze a handler in flight varies with the
            // traffic mix (a guessed multiple of the minimum ended a CI check's run with 2 of 14).
            long now = System.nanoTime();
            if (now < nextFencedCount[0]) {
                return false;
            }
            nextFencedCount[0] = now + TimeUnit.SECONDS.toNanos(5);
            return stopsFencedSoFar.getAsLong() >= min.zombieStopsFenced();
        };
    }

    /** The checker's count of fenced zombie stops so far; -1 while the logs cannot be read whole. */
    private static long stopsFencedSoFar(WorkerFleet fleet, Path logDir, DataSource ds) {
        try {
            return FencedZombies.count(fleet.incarnations(), WorkerLogs.read(logDir), ds)
                    .stopsFenced();
        } catch (IOException | SQLException | RuntimeException e) {
            return -1; // a line being written, say: counted again at the next check
        }
    }

    /**
     * A preloaded run's storm: until no job is live, at most {@code maxProduceTime}, or (a control)
     * until the first dead letter.
     */
    private void awaitStormEnd(Producer producer) throws SQLException, InterruptedException {
        long deadline = System.nanoTime() + config.workload().maxProduceTime().toNanos();
        while (System.nanoTime() < deadline && producer.retrying(Producer::liveJobs) > 0) {
            if (config.workload().stopAtFirstDeadLetter() && producer.retrying(ChaosRun::deadLetters) > 0) {
                timeline.add("first dead letter: storm ends", "-", "");
                return;
            }
            Thread.sleep(250);
        }
    }

    private static long deadLetters(Connection c) throws SQLException {
        try (java.sql.Statement s = c.createStatement();
                java.sql.ResultSet rs = s.executeQuery("SELECT count(*) FROM outbox_dead_letter")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /**
     * Waits until no job is live, at most {@code limit}, and says how the drain ended. It ends early
     * when every job still live is waiting (not running) and due only after the deadline: such a job
     * is still live at the deadline whatever happens meanwhile, so waiting for it would change no count
     * (a job parked for an hour, say; the checker counts it in {@code notTerminal}).
     */
    private static String awaitDrained(Producer producer, Duration limit) throws SQLException, InterruptedException {
        long deadline = System.nanoTime() + limit.toNanos();
        while (System.nanoTime() < deadline) {
            long leftMillis = Math.max(0, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()));
            long[] live = producer.retrying(c -> Producer.liveJobs(c, leftMillis));
            if (live[0] == 0) {
                return "drained";
            }
            if (live[1] == 0) {
                return "drain ended: " + live[0] + " jobs live, none running or due before the deadline";
            }
            Thread.sleep(250);
        }
        return "drain deadline passed";
    }

    private Thread flipCronDefinitions(CronDeploys cron) {
        long everyMs = config.faults().cronFlipEvery().toMillis();
        Thread t = new Thread(
                () -> {
                    try {
                        while (everyMs > 0) {
                            Thread.sleep(everyMs);
                            cron.flip();
                        }
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    } catch (RuntimeException e) {
                        log.warn("re-registering the cron schedule failed", e);
                    }
                },
                "chaos-cron-deploys");
        t.setDaemon(true);
        t.start();
        return t;
    }

    private String workerMain() {
        return (config.engine().springBoot() ? WorkerMain.class : PlainWorkerMain.class).getName();
    }

    private WorkerFleet startCronNode(RunDatabase db, WorkerJvm jvm, Path logDir) throws Exception {
        WorkerFleet node = WorkerFleet.start(
                "chaos-cron",
                1,
                logDir.resolveSibling(logDir.getFileName() + "-cron"),
                (slot, incarnation) ->
                        jvm.command(LOGBACK, nodeProperties(db, incarnation.workerId()), CronNodeMain.class.getName()),
                timeline);
        node.awaitAllReady(Duration.ofSeconds(60));
        return node;
    }

    private Map<String, String> nodeProperties(RunDatabase db, String workerId) {
        Map<String, String> p = new LinkedHashMap<>();
        p.put("chaos.workerId", workerId);
        p.put("chaos.jdbcUrl", db.url(workerId));
        engineControls(p);
        return p;
    }

    /** A worker incarnation's {@code -D} properties; {@code slot} null for the class-archive training run. */
    private Map<String, String> workerProperties(RunDatabase db, String workerId, WorkerSlot slot) {
        ChaosConfig.Engine e = config.engine();
        Map<String, String> p = new LinkedHashMap<>();
        p.put("chaos.workerId", workerId);
        p.put("chaos.jdbcUrl", db.url(workerId));
        p.put("chaos.concurrency", Integer.toString(e.concurrency()));
        p.put("chaos.claimBatchSize", Integer.toString(e.claimBatchSize()));
        p.put("chaos.prefetch", Integer.toString(e.prefetch()));
        p.put("chaos.visibilityMs", Long.toString(e.visibilityTimeout().toMillis()));
        p.put("chaos.heartbeatMs", Long.toString(e.heartbeatInterval().toMillis()));
        p.put("chaos.poolSize", Integer.toString(e.poolSize()));
        p.put("chaos.localWorkMaxMs", Integer.toString(config.workload().localWorkMaxMillis()));
        for (Control c : config.controls()) {
            if (c.workerProperty() != null) {
                p.put(c.workerProperty(), "true");
            }
        }
        if (slot != null && slot.index() == 1 && config.controls().contains(Control.WORKER_EXITS)) {
            // CONTROL WORKER_EXITS: w1's first incarnation only (its replacement works on)
            if (workerExitPlanned.compareAndSet(false, true)) {
                p.put(WorkerDefects.EXIT_AFTER_MS, Long.toString(CONTROL_EXIT_AFTER_MS));
            }
        }
        if (brokers != null) {
            p.putAll(brokers.workerProperties());
            for (Control c : config.controls()) {
                if (c.brokerRelayProperty() != null) {
                    p.put(c.brokerRelayProperty(), "true");
                }
            }
        }
        engineControls(p);
        if (slot != null) {
            crashPlanner.arm(p, workerId, brokers != null);
        }
        return p;
    }

    private void engineControls(Map<String, String> p) {
        for (Control c : config.controls()) {
            if (c.systemProperty() != null) {
                p.put(c.systemProperty(), "true");
            }
        }
    }

    /**
     * Broker traffic rides on the Spring Boot runs of every kind; a control run carries it only when
     * one of its defects is a broken relay (the quiet controls need none, and time is short in CI).
     */
    /**
     * Broker destinations run with the Spring Boot workers' mixed traffic (or a broker control),
     * unless {@code -Dchaos.brokers=false} (the soak profile's default) leaves them out.
     */
    private boolean withBrokers() {
        return ChaosConfig.brokersEnabled()
                && config.engine().springBoot()
                && config.workload().mixedKinds()
                && (config.controls().isEmpty() || brokerControls());
    }

    private boolean brokerControls() {
        return config.controls().stream().anyMatch(c -> c.brokerRelayProperty() != null);
    }

    private static double seconds(long nanos) {
        return Math.round(nanos / 1e8) / 10.0;
    }

    /** Tells the crash planner of exits, counts unexpected ones, and keeps the timeline. */
    private final class Listener implements WorkerFleet.Listener {
        @Override
        public void started(Incarnation i) {
            timeline.started(i);
        }

        @Override
        public void exited(Incarnation i, int status) {
            if (!crashPlanner.exited(i.workerId(), status)) {
                unexpectedExits.incrementAndGet();
            }
            timeline.exited(i, status);
        }

        @Override
        public void event(String what, String worker, String detail) {
            timeline.event(what, worker, detail);
        }
    }
}
