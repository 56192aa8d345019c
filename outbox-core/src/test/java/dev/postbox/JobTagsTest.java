package dev.postbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import dev.postbox.internal.Transactions;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Tags: validated at enqueue, stored only when given, searchable on live, archived and dead jobs
 * within one tenant, through partial GIN indexes.
 */
class JobTagsTest extends DatabaseTest {

    private long enqueue(Postbox postbox, JobRequest request) {
        return enqueueCommitted(postbox.outbox(), request).jobId();
    }

    private static JobRequest tagged(String kind, String tenant, Map<String, String> tags) {
        return JobRequest.builder(kind)
                .payload(Map.of())
                .tenant(tenant)
                .tags(tags)
                .build();
    }

    @Test
    void jobsAreFoundByTagsLiveArchivedAndDeadWithinTheirTenantOnly() {
        Postbox postbox = track(Postbox.builder(dataSource)
                .handler("done", job -> {})
                .handler("fail", job -> {
                    throw new PermanentJobFailure("no");
                })
                .config(fastConfig().build())
                .build());
        long archived = enqueue(postbox, tagged("done", "acme", Map.of("customer", "42", "request", "abc")));
        long dead = enqueue(postbox, tagged("fail", "acme", Map.of("customer", "42")));
        postbox.runDueJobs();
        long live = enqueue(postbox, tagged("done", "acme", Map.of("customer", "42")));
        long otherCustomer = enqueue(postbox, tagged("done", "acme", Map.of("customer", "43")));
        long otherTenant = enqueue(postbox, tagged("done", "globex", Map.of("customer", "42")));
        long untagged = enqueue(
                postbox,
                JobRequest.builder("done").payload(Map.of()).tenant("acme").build());

        List<TaggedJob> found = postbox.admin().jobsTagged("acme", Map.of("customer", "42"), 100);

        assertThat(found).extracting(TaggedJob::id).containsExactly(live, dead, archived);
        assertThat(found).extracting(TaggedJob::state).containsExactly("pending", "dead", "done");
        assertThat(found.get(2).tags()).containsExactlyInAnyOrderEntriesOf(Map.of("customer", "42", "request", "abc"));
        assertThat(postbox.admin().jobsTagged("acme", Map.of("customer", "42", "request", "abc"), 100))
                .extracting(TaggedJob::id)
                .containsExactly(archived);
        assertThat(postbox.admin().jobsTagged("globex", Map.of("customer", "42"), 100))
                .extracting(TaggedJob::id)
                .containsExactly(otherTenant);
        assertThat(postbox.admin().jobsTagged(null, Map.of("customer", "42"), 100))
                .as("the default tenant has none")
                .isEmpty();
        assertThat(postbox.admin().jobsTaggedInEveryTenant(Map.of("customer", "42"), 100))
                .as("every tenant's, newest first")
                .extracting(TaggedJob::id, TaggedJob::tenant)
                .containsExactly(
                        tuple(otherTenant, "globex"),
                        tuple(live, "acme"),
                        tuple(dead, "acme"),
                        tuple(archived, "acme"));
        assertThat(postbox.admin().job(archived).orElseThrow().tags()).containsEntry("request", "abc");
        assertThat(postbox.admin().deadLetters(DeadLetterFilter.all(), 10))
                .as("a dead letter names its tenant")
                .extracting(DeadLetter::id, DeadLetter::tenant)
                .containsExactly(tuple(dead, "acme"));
        assertThat(jdbc.queryForObject("SELECT tags IS NULL FROM outbox_job WHERE id = ?", Boolean.class, untagged))
                .as("a job without tags stores none")
                .isTrue();
        assertThat(otherCustomer).isPositive();
    }

    @Test
    void badTagsAreRefusedNamingTheTagAndTheRule() {
        assertThatThrownBy(() -> JobRequest.builder("k").tag("has space", "v"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("tag key 'has space' must be 1 to 64 letters, digits");
        assertThatThrownBy(() -> JobRequest.builder("k").tag("a=b", "v")).hasMessageContaining("tag key 'a=b'");
        assertThatThrownBy(() -> JobRequest.builder("k").tag("k", ""))
                .hasMessageContaining("tag 'k' must have a value of 1 to 200 characters");
        assertThatThrownBy(() -> JobRequest.builder("k").tag("k", "x".repeat(201)))
                .hasMessageContaining("was 201 characters");
        assertThatThrownBy(() -> JobRequest.builder("k").tag("k", "a\nb"))
                .hasMessageContaining("the value of tag 'k' contains a control character (U+000A)");
        Map<String, String> many = new HashMap<>();
        for (int i = 0; i < 11; i++) {
            many.put("t" + i, "v");
        }
        assertThatThrownBy(() ->
                        JobRequest.builder("k").payload(Map.of()).tags(many).build())
                .hasMessageContaining("at most 10 tags, this one has 11");
    }

    /**
     * The plan of a search with many archived jobs: the archive partitions' partial GIN index, not a
     * scan of the archive. 100,000 archived rows (one in a thousand tagged), written by one INSERT;
     * docs/schema.md shows the plan.
     */
    @Test
    void aSearchOverManyArchivedJobsUsesTheTagIndexes() throws Exception {
        jdbc.execute("INSERT INTO outbox_job_archive (id, queue, kind, payload, priority, state, attempts,"
                + " max_attempts, created_at, finished_at, tags)"
                + " SELECT g, 'default', 'bulk', '{}', 0, 'done', 1, 8, now(), now(),"
                + "   CASE WHEN g % 1000 = 0 THEN ARRAY['customer=' || (g / 1000)] END"
                + " FROM generate_series(1, 100000) g");
        jdbc.execute("ANALYZE outbox_job_archive");
        Postbox postbox =
                track(Postbox.builder(dataSource).config(fastConfig().build()).build());

        assertThat(postbox.admin().jobsTagged(null, Map.of("customer", "42"), 10))
                .extracting(TaggedJob::id)
                .containsExactly(42_000L);
        assertThat(postbox.admin().jobsTaggedInEveryTenant(Map.of("customer", "42"), 10))
                .extracting(TaggedJob::id)
                .containsExactly(42_000L);
        // the partition holding the rows is read through its index; only empty partitions are scanned
        for (String tenant : new String[] {" AND coalesce(tenant, '') = ''", ""}) {
            String plan = explain("SELECT id FROM outbox_job_archive WHERE tags @> ARRAY['customer=42']" + tenant
                    + " ORDER BY id DESC LIMIT 10");
            assertThat(plan).as(tenant).containsPattern("Bitmap Index Scan on outbox_job_archive_p\\d+_tags_idx");
            assertThat(plan.lines().filter(line -> line.contains("Seq Scan")))
                    .as(tenant)
                    .allMatch(line -> line.contains("cost=0.00..0.00"));
        }
    }

    private String explain(String sql) throws Exception {
        try (Connection c = dataSource.getConnection()) {
            return Transactions.rolledBack(c, tx -> {
                StringBuilder text = new StringBuilder();
                try (Statement s = tx.createStatement();
                        ResultSet rs = s.executeQuery("EXPLAIN " + sql)) {
                    while (rs.next()) {
                        text.append(rs.getString(1)).append('\n');
                    }
                }
                return text.toString();
            });
        }
    }
}
