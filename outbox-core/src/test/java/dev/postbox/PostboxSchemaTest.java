package dev.postbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.postbox.internal.SchemaQualifier;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.datasource.SimpleDriverDataSource;

/** Issue 13: the schema's name is validated, and Postbox's statements are qualified with it and nothing else. */
class PostboxSchemaTest {

    private final SchemaQualifier billing = SchemaQualifier.of("billing");

    @Test
    void aBadSchemaNameIsRefusedSayingWhatAGoodOneLooksLike() {
        assertThatThrownBy(() -> PostboxSchema.named("Billing"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("schema name \"Billing\" is not usable")
                .hasMessageContaining("lower-case letters, digits and underscores")
                .hasMessageContaining("write it in lower case: \"billing\"");
        for (String bad : new String[] {"bad-name", "1st", "a b", "x\"; DROP TABLE outbox_job; --", "schéma"}) {
            assertThatThrownBy(() -> PostboxSchema.named(bad))
                    .as(bad)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("is not usable: use 1 to 51 lower-case letters")
                    .hasMessageNotContaining("write it in lower case");
        }
        assertThatThrownBy(() -> PostboxSchema.named("x".repeat(52)))
                .hasMessageContaining("use 1 to 51 lower-case letters");
        assertThat(PostboxSchema.named("x".repeat(51)).channel()).hasSize(63);
        assertThatThrownBy(() -> PostboxSchema.named(" "))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("schema name may not be blank")
                .hasMessageContaining("leave it unset to use the connection's search_path");
        assertThatThrownBy(() -> PostboxSchema.named(null)).hasMessageContaining("may not be blank");
        assertThatThrownBy(() -> PostboxSchema.named("pg_temp")).hasMessageContaining("reserved for PostgreSQL");
        assertThatThrownBy(() -> PostboxSchema.named("information_schema"))
                .hasMessageContaining("reserved for PostgreSQL");
    }

    @Test
    void theDefaultLeavesTheDataSourceAndTheChannelAsTheyWere() {
        DataSource ds = new SimpleDriverDataSource();
        assertThat(PostboxSchema.searchPath().dataSource(ds)).isSameAs(ds);
        assertThat(PostboxSchema.of(ds)).isEqualTo(PostboxSchema.searchPath());
        assertThat(PostboxSchema.searchPath().channel()).isEqualTo("postbox_job");
        assertThat(PostboxSchema.searchPath().name()).isEmpty();

        DataSource qualified = PostboxSchema.named("billing").dataSource(ds);
        assertThat(qualified).isNotSameAs(ds);
        assertThat(PostboxSchema.of(qualified)).isEqualTo(PostboxSchema.named("billing"));
        assertThat(PostboxSchema.of(qualified).channel()).isEqualTo("postbox_job_billing");
        assertThat(PostboxSchema.unqualified(qualified)).isSameAs(ds);
        assertThat(PostboxSchema.named("shipping").dataSource(qualified))
                .as("re-qualifying replaces the schema")
                .satisfies(d -> assertThat(PostboxSchema.of(d).name()).hasValue("shipping"))
                .satisfies(d -> assertThat(PostboxSchema.unqualified(d)).isSameAs(ds));
        assertThat(PostboxSchema.searchPath().dataSource(qualified)).isSameAs(ds);
    }

    @Test
    void postboxsTablesSequencesAndFunctionsAreQualifiedWhereverAStatementNamesThem() {
        assertThat(billing.qualify("SELECT id FROM outbox_job j JOIN outbox_queue q ON q.name = j.queue"))
                .isEqualTo(
                        "SELECT id FROM \"billing\".outbox_job j JOIN \"billing\".outbox_queue q ON q.name = j.queue");
        assertThat(billing.qualify("INSERT INTO outbox_job (id) VALUES (nextval('outbox_job_id_seq'))"))
                .isEqualTo("INSERT INTO \"billing\".outbox_job (id) VALUES (nextval('\"billing\".outbox_job_id_seq'))");
        assertThat(billing.qualify("SELECT to_regclass('outbox_installation') IS NOT NULL"))
                .isEqualTo("SELECT to_regclass('\"billing\".outbox_installation') IS NOT NULL");
        assertThat(billing.qualify("delete from OUTBOX_WORKER where id = ?;DELETE FROM postbox_inbox"))
                .isEqualTo("delete from \"billing\".OUTBOX_WORKER where id = ?;DELETE FROM \"billing\".postbox_inbox");
        assertThat(billing.qualify("SELECT * FROM outbox_job_status, outbox_schedule_fire WHERE x = $1"))
                .isEqualTo(
                        "SELECT * FROM \"billing\".outbox_job_status, \"billing\".outbox_schedule_fire WHERE x = $1");
    }

    @Test
    void nothingElseInAStatementChanges() {
        // Columns of the statement's table (name.column), names already qualified, other identifiers that
        // merely contain a name, literals that are not exactly a name, quoted identifiers, comments,
        // dollar-quoted and escape strings.
        String untouched = "UPDATE x SET a = 1 WHERE outbox_endpoint.url = ? AND s.outbox_job = 2"
                + " AND my_outbox_job = outbox_jobs AND t = 'outbox_job is full' AND u = \"outbox_job\""
                + " AND v = E'it\\'s outbox_job' AND w = $body$ outbox_job $body$ -- outbox_job\n"
                + " /* outbox_job */ AND y = 1.5e3";
        assertThat(billing.qualify(untouched)).isEqualTo(untouched);
        assertThat(billing.qualify("LISTEN postbox_job_billing")).isEqualTo("LISTEN postbox_job_billing");
        String once = billing.qualify("SELECT 1 FROM outbox_job -- outbox_queue\nJOIN outbox_queue ON true");
        assertThat(once)
                .isEqualTo(
                        "SELECT 1 FROM \"billing\".outbox_job -- outbox_queue\nJOIN \"billing\".outbox_queue ON true");
        assertThat(billing.qualify(once)).as("idempotent").isEqualTo(once);
    }

    @Test
    void theNamesAreWhatTheMigrationsCreate() {
        assertThat(SchemaQualifier.NAMES)
                .contains(
                        "outbox_job",
                        "outbox_job_archive",
                        "outbox_job_archive_default",
                        "outbox_dead_letter",
                        "outbox_job_id_seq",
                        "outbox_lease_token_seq",
                        "outbox_job_status",
                        "outbox_schedule_fire",
                        "outbox_endpoint",
                        "postbox_inbox",
                        "outbox_installation",
                        "outbox_job_sort_at",
                        "outbox_schema_version")
                .doesNotContain("outbox_job_claim_idx", "postbox_job", "postbox_schema_history");
    }
}
