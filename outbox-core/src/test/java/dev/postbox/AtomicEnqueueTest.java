package dev.postbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class AtomicEnqueueTest extends DatabaseTest {

    record Order(String id, int amount) {}

    @Test
    void committedTransactionWritesTheJobWithItsPayload() {
        Postbox postbox = Postbox.builder(dataSource).build();
        EnqueueResult result = enqueueCommitted(postbox.outbox(), JobRequest.of("ship", new Order("o-1", 3)));

        assertThat(result.created()).isTrue();
        Map<String, Object> row = jdbc.queryForMap(
                "SELECT kind, queue, state, attempts, payload->>'id' AS id FROM outbox_job WHERE id = ?",
                result.jobId());
        assertThat(row)
                .containsEntry("kind", "ship")
                .containsEntry("queue", "default")
                .containsEntry("state", "pending")
                .containsEntry("attempts", 0)
                .containsEntry("id", "o-1");
    }

    @Test
    void rolledBackBusinessTransactionLeavesNoJobEver() {
        Postbox postbox = Postbox.builder(dataSource).build();
        jdbc.execute("CREATE TABLE IF NOT EXISTS business_order (id text PRIMARY KEY)");

        tx.executeWithoutResult(s -> {
            jdbc.update("INSERT INTO business_order VALUES ('o-2')");
            postbox.outbox().enqueue(JobRequest.of("ship", new Order("o-2", 1)));
            s.setRollbackOnly();
        });

        assertThat(count("SELECT count(*) FROM business_order")).isZero();
        assertThat(count("SELECT count(*) FROM outbox_job")).isZero();
        Postbox worker = track(Postbox.builder(dataSource)
                .handler("ship", job -> {
                    throw new AssertionError("a rolled-back job ran: " + job);
                })
                .build());
        assertThat(worker.runDueJobs()).isZero();
    }

    @Test
    void enqueueWithoutTransactionFailsWithAClearMessage() {
        Postbox postbox = Postbox.builder(dataSource).build();

        assertThatThrownBy(() -> postbox.outbox().enqueue(JobRequest.of("ship", Map.of())))
                .isInstanceOf(NoTransactionException.class)
                .hasMessageContaining("@Transactional")
                .hasMessageContaining("postbox.transaction-mode=optional");
        assertThat(count("SELECT count(*) FROM outbox_job")).isZero();
    }

    @Test
    void optionalTransactionModeWritesOnItsOwn() {
        Postbox postbox = Postbox.builder(dataSource)
                .config(PostboxConfig.custom()
                        .transactionMode(TransactionMode.OPTIONAL)
                        .build())
                .build();

        postbox.outbox().enqueue(JobRequest.of("ship", Map.of("a", 1)));

        assertThat(count("SELECT count(*) FROM outbox_job")).isOne();
    }

    @Test
    void badPayloadsAreRefusedWithTheKindNamedAndNothingWritten() {
        Postbox postbox = Postbox.builder(dataSource)
                .config(PostboxConfig.custom().maxPayloadBytes(100).build())
                .build();

        assertThatThrownBy(() -> enqueueCommitted(postbox.outbox(), JobRequest.ofJson("ship", "{not json")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("job kind 'ship'")
                .hasMessageContaining("not valid JSON");
        assertThatThrownBy(() ->
                        enqueueCommitted(postbox.outbox(), JobRequest.of("ship", Map.of("x", "y".repeat(200)))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("maxPayloadBytes (100)");
        assertThat(count("SELECT count(*) FROM outbox_job")).isZero();
    }

    @Test
    void batchEnqueueWritesAllJobsInTheTransaction() {
        Postbox postbox = Postbox.builder(dataSource).build();
        List<JobRequest> requests = List.of(
                JobRequest.of("a", Map.of("n", 1)),
                JobRequest.builder("b")
                        .payload(Map.of("n", 2))
                        .idempotencyKey("k-b")
                        .build(),
                JobRequest.of("c", Map.of("n", 3)));

        List<EnqueueResult> results = tx.execute(s -> postbox.outbox().enqueueAll(requests));

        assertThat(results).hasSize(3).allMatch(EnqueueResult::created);
        assertThat(jdbc.queryForList("SELECT kind FROM outbox_job ORDER BY id", String.class))
                .containsExactly("a", "b", "c");
    }

    @Test
    void plainJdbcConnectionInAutoCommitIsRefused() throws Exception {
        Postbox postbox = Postbox.builder(dataSource).build();
        try (var c = dataSource.getConnection()) {
            c.setAutoCommit(true);
            assertThatThrownBy(() -> postbox.outbox().enqueue(c, JobRequest.of("a", Map.of())))
                    .isInstanceOf(NoTransactionException.class)
                    .hasMessageContaining("auto-commit");
            c.setAutoCommit(false);
            postbox.outbox().enqueue(c, JobRequest.of("a", Map.of()));
            c.rollback();
        }
        assertThat(count("SELECT count(*) FROM outbox_job")).isZero();
    }
}
