package dev.postbox.benchmarks;

import com.zaxxer.hikari.HikariDataSource;
import dev.postbox.internal.JobStore;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Scenario 2: the floor. Two connections and nothing else: one thread runs the engine's own claim
 * statement (captured from {@link JobStore#claim} with its bindings) in batches, reading only ids; a second deletes each claimed batch with {@code DELETE ... WHERE id =
 * ANY(?)}. No handler, no archive, no fencing check: the ceiling of any framework on this database.
 *
 * <p>Scenario {@value #FINISH_NAME}: the same loop, but each batch ends with the engine's own
 * completion statement ({@link JobStore#finish}: fenced by the claim's token, moved to the archive)
 * instead of the bare DELETE: the ceiling of the engine's statements on their own, without the
 * engine's threads, buffers, start marks and tenant lookups. Burn-down ÷ this floor is the engine's
 * own overhead; this floor ÷ the bare floor is what keeping history costs the database.
 */
final class Floor {

    private static final Logger log = LoggerFactory.getLogger(Floor.class);
    private static final long[] END = new long[0];

    static final String FINISH_NAME = "floor-finish";

    private Floor() {}

    static Map<String, Object> run(Env env, int jobs, int batch) throws Exception {
        HikariDataSource ds = Db.create();
        try {
            Fixtures.insertPending(ds, jobs, "noop");
            double seconds = drain(ds, jobs, batch, false);
            Map<String, Object> r = env.result("floor", jobs, seconds);
            r.put("drain", true);
            r.put("claimBatch", batch);
            r.put("notes", "raw JDBC: engine claim statement + DELETE ... = ANY(?), two connections, batch " + batch);
            env.floor((Double) r.get("jobsPerSecond"));
            log.info("floor: {} jobs in {} s = {} jobs/s", jobs, seconds, r.get("jobsPerSecond"));
            return r;
        } finally {
            Db.drop(ds);
        }
    }

    /** Scenario {@value #FINISH_NAME}: the floor loop ending each batch with the engine's completion. */
    static Map<String, Object> runWithEngineFinish(Env env, int jobs, int batch) throws Exception {
        HikariDataSource ds = Db.create();
        try {
            Fixtures.insertPending(ds, jobs, "noop");
            double seconds = drain(ds, jobs, batch, true);
            Map<String, Object> r = env.result(FINISH_NAME, jobs, seconds);
            r.put("drain", true);
            r.put("claimBatch", batch);
            r.put(
                    "notes",
                    "raw JDBC: engine claim statement + the engine's completion (JobStore.finish: fenced, archived),"
                            + " two connections, batch " + batch);
            log.info("floor-finish: {} jobs in {} s = {} jobs/s", jobs, seconds, r.get("jobsPerSecond"));
            return r;
        } finally {
            Db.drop(ds);
        }
    }

    /** Drains the {@code jobs} pending rows of {@code ds} with the floor loop; returns its seconds. */
    static double drain(HikariDataSource ds, int jobs, int batch) throws Exception {
        return drain(ds, jobs, batch, false);
    }

    /**
     * The floor loop; with {@code engineFinish} each batch is completed by {@link JobStore#finish}
     * (ids and tokens) instead of deleted.
     */
    private static double drain(HikariDataSource ds, int jobs, int batch, boolean engineFinish) throws Exception {
        BlockingQueue<long[]> claimed = new ArrayBlockingQueue<>(64);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        long[] deleted = new long[1];
        Thread deleter = new Thread(
                () -> {
                    try (Connection c = ds.getConnection();
                            PreparedStatement ps = c.prepareStatement("DELETE FROM outbox_job WHERE id = ANY(?)")) {
                        c.setAutoCommit(true);
                        JobStore store = new JobStore();
                        while (true) {
                            long[] ids = claimed.take();
                            if (ids == END) {
                                return;
                            }
                            if (engineFinish) {
                                // ids and tokens alternate: id, token, id, token, ...
                                List<JobStore.Completion> done = new ArrayList<>(ids.length / 2);
                                for (int i = 0; i < ids.length; i += 2) {
                                    done.add(new JobStore.Completion(ids[i], ids[i + 1], 0));
                                }
                                deleted[0] +=
                                        store.finish(c, done, "done", false).size();
                                continue;
                            }
                            Long[] boxed = new Long[ids.length];
                            for (int i = 0; i < ids.length; i++) {
                                boxed[i] = ids[i];
                            }
                            Array array = c.createArrayOf("bigint", boxed);
                            ps.setArray(1, array);
                            deleted[0] += ps.executeUpdate();
                        }
                    } catch (Throwable e) {
                        failure.set(e);
                    }
                },
                "floor-delete");
        long t0 = System.nanoTime();
        deleter.start();
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(true);
            StatementCapture.Captured claim = StatementCapture.claim(c, batch, "floor");
            PreparedStatement ps = claim.prepareAsEngine(c);
            while (failure.get() == null) {
                List<Long> ids = new ArrayList<>(batch);
                try (ResultSet rs = claim.query(ps)) {
                    while (rs.next()) {
                        ids.add(rs.getLong(1));
                        if (engineFinish) {
                            ids.add(rs.getLong(12)); // the lease token
                        }
                    }
                }
                if (ids.isEmpty()) {
                    break;
                }
                claimed.put(ids.stream().mapToLong(Long::longValue).toArray());
            }
        } finally {
            claimed.put(END);
            deleter.join();
        }
        double seconds = (System.nanoTime() - t0) / 1e9;
        if (failure.get() != null) {
            throw new IllegalStateException("floor failed", failure.get());
        }
        if (deleted[0] != jobs) {
            throw new IllegalStateException("floor deleted " + deleted[0] + " of " + jobs);
        }
        return seconds;
    }
}
