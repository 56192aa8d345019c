package dev.postbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.postbox.internal.IdleTransactionBound;
import dev.postbox.testing.BlackHoleProxy;
import java.sql.Timestamp;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.postgresql.Driver;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Issue 32: a worker cut off from PostgreSQL by a network black hole (every socket left open, no RST,
 * no FIN) while its completion transaction is open holds the job's row lock for as long as the cut
 * lasts unless the server ends that transaction; another worker's rescuer ({@code SKIP LOCKED})
 * cannot return the job meanwhile. The job must run again within its lease plus a few seconds, as
 * the database measures them.
 */
class NetworkBlackHoleTest extends DatabaseTest {

    private static final Duration LEASE = Duration.ofSeconds(2);
    private static final Duration RESCUE_INTERVAL = Duration.ofMillis(200);
    /**
     * How long past its lease's end (database clock) the job may wait for its next start: the idle
     * bound, a rescue interval and the time the rescuing engine needs to claim and start it, with room
     * for a busy machine.
     */
    private static final Duration BOUND =
            IdleTransactionBound.LIMIT.plus(RESCUE_INTERVAL).plusSeconds(4);

    @Test
    void aJobWhoseCompletionTransactionIsCutOffRunsAgainWithinItsLeasePlusTheBound() throws Exception {
        jdbc.execute("CREATE TABLE IF NOT EXISTS black_hole_effect (job_id bigint NOT NULL, worker text NOT NULL,"
                + " started_at timestamptz NOT NULL DEFAULT clock_timestamp())");
        Properties url = Driver.parseURL(dataSource.getJdbcUrl(), null);
        assertThat(url).as("the test database's URL").isNotNull();
        try (BlackHoleProxy proxy =
                        new BlackHoleProxy(url.getProperty("PGHOST"), Integer.parseInt(url.getProperty("PGPORT")));
                HikariDataSource partitionedDb = throughProxy(proxy)) {
            JdbcTemplate partitionedJdbc = new JdbcTemplate(partitionedDb);
            // The partitioned worker's handler writes its effect, and the cut comes between the
            // engine's completion statement and the commit (a synchronisation runs just before it).
            Postbox partitioned = track(Postbox.builder(partitionedDb)
                    .handler(HandlerRegistration.of("work", job -> {
                                partitionedJdbc.update(
                                        "INSERT INTO black_hole_effect (job_id, worker) VALUES (?, 'partitioned')",
                                        job.id());
                                TransactionSynchronizationManager.registerSynchronization(
                                        new TransactionSynchronization() {
                                            @Override
                                            public void beforeCommit(boolean readOnly) {
                                                proxy.blackHole();
                                            }
                                        });
                            })
                            .transactional())
                    .config(config("partitioned"))
                    .build());
            long id = enqueueCommitted(Postbox.builder(dataSource).build().outbox(), JobRequest.of("work", Map.of()))
                    .jobId();
            partitioned.start();
            await().atMost(Duration.ofSeconds(30)).until(proxy::blackHoled);
            try {
                // The lease the database holds for the cut-off claim: a heartbeat sent just before the
                // cut may still extend it, so the latest value seen until the job is taken over counts.
                AtomicReference<Timestamp> leaseEnd = new AtomicReference<>();
                JdbcTemplate rescuerJdbc = jdbc;
                Postbox rescuer = track(Postbox.builder(dataSource)
                        .handler(HandlerRegistration.of(
                                        "work",
                                        job -> rescuerJdbc.update(
                                                "INSERT INTO black_hole_effect (job_id, worker) VALUES (?, 'rescuer')",
                                                job.id()))
                                .transactional())
                        .config(config("rescuer"))
                        .build());
                rescuer.start();
                await().atMost(LEASE.plus(BOUND).plusSeconds(10))
                        .pollInterval(Duration.ofMillis(50))
                        .until(() -> {
                            jdbc.query(
                                    "SELECT lease_until FROM outbox_job WHERE id = ? AND lease_owner = 'partitioned'",
                                    rs -> {
                                        Timestamp t = rs.getTimestamp(1);
                                        leaseEnd.accumulateAndGet(t, (a, b) -> a == null || b.after(a) ? b : a);
                                    },
                                    id);
                            return count("SELECT count(*) FROM black_hole_effect WHERE worker = 'rescuer'") > 0;
                        });

                assertThat(leaseEnd.get())
                        .as("the partitioned worker's lease, seen")
                        .isNotNull();
                Double late = jdbc.queryForObject(
                        "SELECT extract(epoch FROM started_at - ?) FROM black_hole_effect WHERE worker = 'rescuer'",
                        Double.class,
                        leaseEnd.get());
                assertThat(late)
                        .as("seconds from the cut-off lease's end to the job's next start")
                        .isNotNull()
                        .isLessThanOrEqualTo(BOUND.toMillis() / 1000.0);
                await().atMost(Duration.ofSeconds(30))
                        .until(() -> count("SELECT count(*) FROM outbox_job_archive WHERE id = ?", id) == 1);
                assertThat(count("SELECT count(*) FROM black_hole_effect"))
                        .as("the cut-off transaction's effect rolled back, the rescuer's committed")
                        .isEqualTo(1);
            } finally {
                proxy.reset(); // the partitioned engine's threads see their connections end and stop
            }
        }
    }

    private PostboxConfig config(String workerId) {
        return fastConfig()
                .workerId(workerId)
                .concurrency(1)
                .visibilityTimeout(LEASE)
                .heartbeatInterval(Duration.ofMillis(500))
                .rescueInterval(RESCUE_INTERVAL)
                .retryPolicy(RetryPolicy.custom()
                        .base(Duration.ofMillis(10))
                        .cap(Duration.ofMillis(10))
                        .build())
                .build();
    }

    /** A pool whose connections go through the proxy, as a worker's on the far side of the cut. */
    private HikariDataSource throughProxy(BlackHoleProxy proxy) {
        String direct = dataSource.getJdbcUrl();
        int slash = direct.indexOf('/', "jdbc:postgresql://".length());
        HikariConfig pool = new HikariConfig();
        pool.setJdbcUrl("jdbc:postgresql://127.0.0.1:" + proxy.port() + direct.substring(slash));
        pool.setMaximumPoolSize(10);
        pool.setPoolName(dataSource.getPoolName() + "_partitioned");
        return new HikariDataSource(pool);
    }
}
