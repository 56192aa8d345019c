package dev.postbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import dev.postbox.internal.ClaimStore;
import dev.postbox.testing.TestDatabase;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Advisory locks are database-wide; Postbox's are scoped to one installation ({@code
 * internal/AdvisoryLocks}). Two installations in two schemas of one database ({@code billing},
 * {@code shipping}), each with a capped queue of the same name: one installation's claim lock does
 * not hold up the other's claims, and one schema's installer does not hold up another schema's.
 * Within one installation the locks still serialise.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AdvisoryLockScopeTest {

    private static final String QUEUE = "mail";

    private HikariDataSource database;
    private DataSource billing;
    private DataSource shipping;
    private JdbcTemplate sql;
    private TransactionTemplate tx;
    private Postbox billingBox;
    private Postbox shippingBox;

    @BeforeAll
    void installTwoSchemas() {
        database = TestDatabase.createEmpty();
        billing = PostboxSchema.named("billing").dataSource(database);
        shipping = PostboxSchema.named("shipping").dataSource(database);
        new SchemaInstaller(billing).install();
        new SchemaInstaller(shipping).install();
        sql = new JdbcTemplate(database);
        tx = new TransactionTemplate(new DataSourceTransactionManager(database));
    }

    @AfterEach
    void stopEngines() {
        for (Postbox box : new Postbox[] {billingBox, shippingBox}) {
            if (box != null) {
                box.stop();
            }
        }
        billingBox = null;
        shippingBox = null;
    }

    @AfterAll
    void dropDatabase() {
        TestDatabase.drop(database);
    }

    private static PostboxConfig fast() {
        return PostboxConfig.custom()
                .pollInterval(Duration.ofMillis(50))
                .completionFlushInterval(Duration.ofMillis(2))
                .queues(QUEUE)
                .shutdownGrace(Duration.ofSeconds(5))
                .build();
    }

    private Postbox engine(DataSource schema, Set<String> ran, String name) {
        Postbox box = Postbox.builder(schema)
                .config(fast())
                .handler(
                        "send",
                        job -> ran.add(name + ":" + job.payload(Map.class).get("n")))
                .build();
        box.admin().setMaxConcurrency(QUEUE, 1);
        return box;
    }

    private void enqueue(Postbox box, int n) {
        tx.executeWithoutResult(s -> box.outbox()
                .enqueue(JobRequest.builder("send")
                        .queue(QUEUE)
                        .payload(Map.of("n", n))
                        .build()));
    }

    @Test
    void aCappedQueuesClaimLockHoldsUpItsOwnInstallationOnly() throws Exception {
        Set<String> ran = ConcurrentHashMap.newKeySet();
        billingBox = engine(billing, ran, "billing");
        shippingBox = engine(shipping, ran, "shipping");
        enqueue(billingBox, 1);
        enqueue(shippingBox, 1);

        // A billing node in the middle of a claim of the capped queue: it holds the queue's claim lock
        // until its transaction ends.
        try (Connection claiming = billing.getConnection()) {
            claiming.setAutoCommit(false);
            assertThat(new ClaimStore(JsonCodec.jackson()).lockCappedQueue(claiming, QUEUE))
                    .isOne();
            billingBox.start();
            shippingBox.start();

            await().atMost(Duration.ofSeconds(15)).until(() -> ran.contains("shipping:1"));
            await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(3)).until(() -> !ran.contains("billing:1"));
            claiming.commit();
        }
        await().atMost(Duration.ofSeconds(15)).until(() -> ran.contains("billing:1"));
    }

    @Test
    void anInstallerHoldsUpInstallersOfItsOwnSchemaOnly() throws Exception {
        // Own threads: the common pool may have a single one on a small machine.
        ExecutorService threads = Executors.newFixedThreadPool(3);
        try (Connection holder = database.getConnection()) {
            holder.setAutoCommit(false);
            try (Statement s = holder.createStatement()) {
                s.execute("LOCK TABLE billing.outbox_schema_version IN ACCESS EXCLUSIVE MODE");
            }
            // A billing installer takes its lock, then waits to read the version table.
            CompletableFuture<List<Integer>> billingInstaller =
                    CompletableFuture.supplyAsync(() -> new SchemaInstaller(billing).install(), threads);
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> waiting("relation = 'billing.outbox_schema_version'::regclass") == 1);

            assertThat(CompletableFuture.supplyAsync(() -> new SchemaInstaller(shipping).install(), threads))
                    .as("shipping's installer does not wait for billing's")
                    .succeedsWithin(Duration.ofSeconds(10))
                    .isEqualTo(List.of());

            CompletableFuture<List<Integer>> secondBillingInstaller =
                    CompletableFuture.supplyAsync(() -> new SchemaInstaller(billing).install(), threads);
            await().atMost(Duration.ofSeconds(10)).until(() -> waiting("locktype = 'advisory'") == 1);
            assertThat(secondBillingInstaller).isNotDone();

            holder.commit();
            assertThat(billingInstaller).succeedsWithin(Duration.ofSeconds(10)).isEqualTo(List.of());
            assertThat(secondBillingInstaller)
                    .succeedsWithin(Duration.ofSeconds(10))
                    .isEqualTo(List.of());
        } finally {
            threads.shutdownNow();
        }
    }

    private long waiting(String condition) {
        Long n = sql.queryForObject(
                "SELECT count(*) FROM pg_locks WHERE NOT granted AND database = (SELECT oid FROM pg_database"
                        + " WHERE datname = current_database()) AND " + condition,
                Long.class);
        return n == null ? 0 : n;
    }
}
