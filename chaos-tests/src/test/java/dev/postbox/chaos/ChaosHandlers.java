package dev.postbox.chaos;

import dev.postbox.Job;
import dev.postbox.http.webhook.Webhooks;
import dev.postbox.spring.OutboxHandler;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import javax.sql.DataSource;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * The chaos worker's own handlers, found by the starter through {@link OutboxHandler}. Each one
 * prints its start marker first ({@link CrashPoints#started}); the transactional ones write their
 * effect in the engine's completing transaction, keyed by the payload's {@code tx} and {@code seq},
 * with the tenant of the job as the handler got it, and print {@code ROLLBACK <job id> <tx> <seq>
 * <wall ms>} when that transaction rolls back (how the checker sees a fenced zombie without asking
 * the engine).
 */
public final class ChaosHandlers {

    private final DataSource dataSource;
    private final CrashPoints crash;
    private final String workerId;
    private final int workMaxMillis;
    private final WorkerDefects defects;
    private final Webhooks webhooks;

    /**
     * {@code webhooks}: delivery-http's sender, for the {@link Control#MISROUTED_EFFECT} control only;
     * null in a worker without delivery-http (which cannot run that control).
     */
    ChaosHandlers(
            DataSource dataSource,
            CrashPoints crash,
            String workerId,
            int workMaxMillis,
            WorkerDefects defects,
            Webhooks webhooks) {
        if (defects.misroutedEffect && webhooks == null) {
            throw new IllegalArgumentException(
                    "the misrouted-effect control sends webhooks: run it with the Spring Boot workers (WorkerMain)");
        }
        this.dataSource = dataSource;
        this.crash = crash;
        this.workerId = workerId;
        this.workMaxMillis = workMaxMillis;
        this.defects = defects;
        this.webhooks = webhooks;
    }

    @OutboxHandler(value = WorkerMain.LOCAL, transactional = true, backoffBase = "100ms", backoffCap = "2s")
    public void local(Job job) throws SQLException, InterruptedException {
        long entered = System.currentTimeMillis();
        crash.started(job);
        Map<?, ?> payload = job.payload(Map.class);
        long tx = ((Number) payload.get("tx")).longValue();
        long seq = ((Number) payload.get("seq")).longValue();
        String orderingKey = (String) payload.get("ok");
        try {
            applyLocal(job, tx, seq, orderingKey);
        } finally {
            KeyRuns.ran(job, seq, entered);
        }
        crash.afterHandler(job);
    }

    private void applyLocal(Job job, long tx, long seq, String orderingKey) throws SQLException, InterruptedException {
        if (workMaxMillis > 0) {
            Thread.sleep(ThreadLocalRandom.current().nextInt(workMaxMillis + 1));
        }
        // CONTROL TENANT_SWAP: some jobs reach the handler as another tenant's
        String tenant = defects.tenantSeen(job.tenant().orElse(null), seq);
        // CONTROL LOST: a slice completes without its effect
        if (!defects.skipsEffect(orderingKey, seq)) {
            inTransaction(c -> {
                try (PreparedStatement ps = c.prepareStatement("INSERT INTO chaos_effect"
                        + " (target, tx, seq, ordering_key, worker, tenant) VALUES ('local', ?, ?, ?, ?, ?)")) {
                    ps.setLong(1, tx);
                    ps.setLong(2, seq);
                    ps.setString(3, orderingKey);
                    ps.setString(4, workerId);
                    ps.setString(5, tenant);
                    ps.executeUpdate();
                }
                if (defects.misroutes(orderingKey, seq)) {
                    // CONTROL MISROUTED_EFFECT: a slice is also sent where its kind sends nothing
                    webhooks.send(c, ChaosEndpoints.RX, Map.of("tx", tx, "seq", seq), "misrouted-i-" + seq);
                }
            });
            reportRollback(job.id(), tx + " " + seq);
        }
    }

    /**
     * A hung handler that honours the interrupt: its first attempt sleeps {@link #HUNG_FOR_MILLIS}, so
     * only the kind's time limit ends it (the engine interrupts it and rolls its transaction back); a
     * later attempt writes its effect at once.
     */
    @OutboxHandler(
            value = WorkerMain.HUNG,
            transactional = true,
            timeLimit = WorkerMain.HUNG_TIME_LIMIT,
            backoffBase = "100ms",
            backoffCap = "2s")
    public void hung(Job job) throws SQLException, InterruptedException {
        long entered = System.currentTimeMillis();
        crash.started(job);
        try {
            if (job.attempt() == 1) {
                Thread.sleep(HUNG_FOR_MILLIS);
            }
            writeHungEffect(job);
        } finally {
            hungRan(job, entered);
        }
        crash.afterHandler(job);
    }

    /**
     * A hung handler that ignores the interrupt: its first attempt keeps its thread for {@link
     * #DEAF_FOR_MILLIS} whatever happens, then tries to write its effect; the engine gave the attempt up
     * at its time limit and retried it, so that late write must not land (a second effect).
     */
    @OutboxHandler(
            value = WorkerMain.HUNG_DEAF,
            transactional = true,
            timeLimit = WorkerMain.HUNG_TIME_LIMIT,
            backoffBase = "100ms",
            backoffCap = "2s")
    public void hungDeaf(Job job) throws SQLException {
        long entered = System.currentTimeMillis();
        crash.started(job);
        try {
            hangDeaf(job);
        } finally {
            hungRan(job, entered);
        }
        crash.afterHandler(job);
    }

    private void hangDeaf(Job job) throws SQLException {
        if (job.attempt() == 1) {
            long until = System.nanoTime() + DEAF_FOR_MILLIS * 1_000_000L;
            boolean interrupted = false;
            for (long left = DEAF_FOR_MILLIS; left > 0; left = (until - System.nanoTime()) / 1_000_000L) {
                try {
                    Thread.sleep(left);
                } catch (InterruptedException e) {
                    interrupted = true; // deaf: keeps hanging
                }
            }
            if (interrupted && defects.hungLateEffectEscapes(seq(job))) {
                // CONTROL HUNG_LATE_EFFECT_ESCAPES: the given-up call's write lands after all
                writeOutside(job);
                return;
            }
        }
        writeHungEffect(job);
    }

    /**
     * A hung kind's handler run as the handler saw it: {@code HUNGRUN <job id> <kind> <attempt> <entry ms>
     * <exit ms>} (the checker's {@link HungCheck}).
     */
    private static void hungRan(Job job, long entered) {
        System.out.println(HungCheck.MARKER + job.id() + " " + job.kind() + " " + job.attempt() + " " + entered + " "
                + System.currentTimeMillis());
    }

    /** How long a hung handler's first attempt sleeps (it honours the interrupt): far past its limit. */
    static final long HUNG_FOR_MILLIS = 10_000;

    /** How long a deaf hung handler's first attempt keeps its thread (it ignores the interrupt). */
    static final long DEAF_FOR_MILLIS = 6_000;

    private void writeHungEffect(Job job) throws SQLException {
        inTransaction(c -> insertEffect(c, job));
    }

    private void writeOutside(Job job) throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(true);
            insertEffect(c, job);
        }
    }

    private void insertEffect(Connection c, Job job) throws SQLException {
        Map<?, ?> payload = job.payload(Map.class);
        try (PreparedStatement ps =
                c.prepareStatement("INSERT INTO chaos_effect (target, tx, seq, worker) VALUES ('local', ?, ?, ?)")) {
            ps.setLong(1, ((Number) payload.get("tx")).longValue());
            ps.setLong(2, ((Number) payload.get("seq")).longValue());
            ps.setString(3, workerId);
            ps.executeUpdate();
        }
    }

    private static long seq(Job job) {
        return ((Number) job.payload(Map.class).get("seq")).longValue();
    }

    @OutboxHandler(
            value = WorkerMain.POISON,
            maxAttempts = WorkerMain.POISON_BUDGET,
            backoffBase = "50ms",
            backoffCap = "200ms")
    public void poison(Job job) {
        crash.started(job);
        throw new IllegalStateException("poison job " + job.stableKey() + " always fails");
    }

    @OutboxHandler(value = WorkerMain.CRON, transactional = true, backoffBase = "100ms", backoffCap = "2s")
    public void cron(Job job) throws SQLException {
        crash.started(job);
        Instant fireAt = Instant.parse((String) job.payload(Map.class).get("fireAt"));
        inTransaction(c -> {
            try (PreparedStatement ps =
                    c.prepareStatement("INSERT INTO chaos_cron_fire (fire_at, worker) VALUES (?, ?)")) {
                ps.setTimestamp(1, Timestamp.from(fireAt));
                ps.setString(2, workerId);
                ps.executeUpdate();
            }
        });
        crash.afterHandler(job);
    }

    private interface Write {
        void run(Connection c) throws SQLException;
    }

    /** Joins the engine's transaction (the one that completes the job under its fencing token). */
    private void inTransaction(Write write) throws SQLException {
        Connection c = DataSourceUtils.getConnection(dataSource);
        try {
            write.run(c);
        } finally {
            DataSourceUtils.releaseConnection(c, dataSource);
        }
    }

    private static void reportRollback(long jobId, String key) {
        if (!TransactionSynchronizationManager.isSynchronizationActive()) {
            return;
        }
        TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
            @Override
            public void afterCompletion(int status) {
                if (status != STATUS_COMMITTED) {
                    System.out.println("ROLLBACK " + jobId + " " + key + " " + System.currentTimeMillis());
                }
            }
        });
    }
}
