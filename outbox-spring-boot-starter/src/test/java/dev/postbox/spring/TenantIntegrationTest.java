package dev.postbox.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.postbox.JobRequest;
import dev.postbox.Postbox;
import dev.postbox.PostboxAdmin;
import dev.postbox.PostboxConfig;
import dev.postbox.TenantResolver;
import dev.postbox.spring.endpoint.PostboxAdminProperties;
import dev.postbox.spring.endpoint.PostboxDeadLettersEndpoint;
import dev.postbox.spring.endpoint.PostboxJobsEndpoint;
import dev.postbox.spring.endpoint.PostboxTenantsEndpoint;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Tenants in the starter: the annotations take a tenant (SpEL), a {@link TenantResolver} bean
 * supplies it when none is set (here a thread-bound "current request" tenant), and keys are unique
 * per tenant.
 */
class TenantIntegrationTest {

    /** What a web filter or security context would hold: the tenant of the current request. */
    static final ThreadLocal<String> CURRENT = new ThreadLocal<>();

    public record Invoice(String tenantId, long id) {}

    @OutboxEvent(kind = "invoice-sent", idempotencyKey = "'invoice-' + id", tenant = "tenantId")
    record InvoiceSent(String tenantId, long id) {}

    static class Invoices {
        private final ApplicationEventPublisher events;

        Invoices(ApplicationEventPublisher events) {
            this.events = events;
        }

        @Transactional
        @Enqueue(kind = "bill", payload = "#p0", idempotencyKey = "'bill-' + #p0.id", tenant = "#p0.tenantId")
        public void bill(Invoice invoice) {}

        @Transactional
        @Enqueue(kind = "remind", payload = "#p0", idempotencyKey = "'remind-' + #p0")
        public void remind(long id) {}

        @Transactional
        @Enqueue(kind = "bill", payload = "#p0", tenant = "'not a tenant'")
        public void badTenant(long id) {}

        @Transactional
        public void send(String tenant, long id) {
            events.publishEvent(new InvoiceSent(tenant, id));
        }
    }

    private static ApplicationContextRunner base() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        BootAutoConfigurations.DATA_SOURCE_TRANSACTION_MANAGER,
                        BootAutoConfigurations.TRANSACTION,
                        PostboxAutoConfiguration.class))
                .withPropertyValues("postbox.worker.enabled=false")
                .withBean(Invoices.class)
                .withBean(TenantResolver.class, () -> CURRENT::get);
    }

    private static List<Map<String, Object>> jobs(JdbcTemplate jdbc, String kind) {
        return jdbc.queryForList("SELECT tenant, idempotency_key FROM outbox_job WHERE kind = ? ORDER BY id", kind);
    }

    @Test
    void annotationsTakeATenantAndKeysAreUniquePerTenant() {
        TestDataSources.withSchema(base()).run(context -> {
            Invoices invoices = context.getBean(Invoices.class);
            JdbcTemplate jdbc = new JdbcTemplate(context.getBean(javax.sql.DataSource.class));

            invoices.bill(new Invoice("acme", 1));
            invoices.bill(new Invoice("globex", 1));
            invoices.bill(new Invoice("acme", 1)); // the same key in one tenant: the first job

            assertThat(jobs(jdbc, "bill")).extracting(row -> row.get("tenant")).containsExactly("acme", "globex");

            invoices.send("acme", 7);
            invoices.send("globex", 7);
            assertThat(jobs(jdbc, "invoice-sent"))
                    .extracting(row -> row.get("tenant"))
                    .containsExactly("acme", "globex");

            assertThatThrownBy(() -> invoices.badTenant(1))
                    .hasMessageContaining("Invoices.badTenant(long)")
                    .hasMessageContaining("'not a tenant' is not a valid tenant id");
        });
    }

    @Test
    void theResolverSuppliesTheTenantWhenNoneIsSet() {
        TestDataSources.withSchema(base()).run(context -> {
            Invoices invoices = context.getBean(Invoices.class);
            JdbcTemplate jdbc = new JdbcTemplate(context.getBean(javax.sql.DataSource.class));
            Postbox postbox = context.getBean(Postbox.class);
            TransactionTemplate tx = new TransactionTemplate(context.getBean(PlatformTransactionManager.class));

            CURRENT.set("acme");
            try {
                invoices.remind(1);
                invoices.remind(1);
                // The API too; a tenant that contradicts the resolver's is refused, through the API
                // and the annotations alike.
                tx.executeWithoutResult(s -> postbox.outbox()
                        .enqueue(JobRequest.builder("api").payload(Map.of()).build()));
                assertThatThrownBy(() -> tx.executeWithoutResult(s -> postbox.outbox()
                                .enqueue(JobRequest.builder("api")
                                        .payload(Map.of())
                                        .tenant("globex")
                                        .build())))
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("has tenant 'globex', but the current tenant");
                assertThatThrownBy(() -> invoices.bill(new Invoice("globex", 2)))
                        .hasStackTraceContaining("has tenant 'globex', but the current tenant");
                invoices.bill(new Invoice("acme", 2)); // its own tenant, named: taken
            } finally {
                CURRENT.remove();
            }
            invoices.remind(1); // no current tenant: the default tenant, a key of its own
            // No current tenant (a system thread): an explicit tenant is taken as it is.
            tx.executeWithoutResult(s -> postbox.outbox()
                    .enqueue(JobRequest.builder("api")
                            .payload(Map.of())
                            .tenant("globex")
                            .build()));

            assertThat(jobs(jdbc, "remind"))
                    .extracting(row -> row.get("tenant"))
                    .containsExactly("acme", null);
            assertThat(jobs(jdbc, "api")).extracting(row -> row.get("tenant")).containsExactly("acme", "globex");
            assertThat(jobs(jdbc, "bill")).extracting(row -> row.get("tenant")).containsExactly("acme");
        });
    }

    @Test
    void tenantPropertiesReachTheEngine() {
        TestDataSources.withSchema(base())
                .withPropertyValues(
                        "postbox.tenants.per-claim=7",
                        "postbox.tenants.concurrency=4",
                        "postbox.tenants.concurrency-overrides.acme=2")
                .run(context -> {
                    PostboxConfig config = context.getBean(Postbox.class).config();
                    assertThat(config.tenantsPerClaim()).isEqualTo(7);
                    assertThat(config.tenantConcurrency("globex")).hasValue(4);
                    assertThat(config.tenantConcurrency("acme")).hasValue(2);
                });
    }

    @Test
    void theActuatorEndpointScopesWritesToOneTenant() {
        TestDataSources.withSchema(base()).run(context -> {
            JdbcTemplate jdbc = new JdbcTemplate(context.getBean(javax.sql.DataSource.class));
            for (String tenant : new String[] {"acme", "acme", "globex"}) {
                jdbc.update(
                        "INSERT INTO outbox_dead_letter (id, queue, kind, payload, priority, attempts,"
                                + " max_attempts, last_error, created_at, tenant) VALUES (nextval('outbox_job_id_seq'),"
                                + " 'default', 'bill', '{}', 0, 8, 8, 'boom', now(), ?)",
                        tenant);
            }
            PostboxAdminProperties properties = new PostboxAdminProperties();
            properties.setWriteEnabled(true);
            PostboxAdmin admin = context.getBean(Postbox.class).admin();
            PostboxDeadLettersEndpoint deadLetters = new PostboxDeadLettersEndpoint(admin, properties);
            PostboxTenantsEndpoint tenants = new PostboxTenantsEndpoint(admin, properties);
            long globexLetter =
                    jdbc.queryForObject("SELECT id FROM outbox_dead_letter WHERE tenant = 'globex'", Long.class);

            assertThat(deadLetters.deadLetters(null, null, null, null, null, null, 10, "acme"))
                    .hasSize(2)
                    .allSatisfy(letter -> assertThat(letter.id()).isNotEqualTo(globexLetter));
            WebEndpointResponse<Map<String, Object>> replay =
                    deadLetters.replay(globexLetter, "acme", SecurityContext.NONE);
            assertThat(replay.getStatus()).isEqualTo(404);
            assertThat(replay.getBody())
                    .containsEntry("error", "tenant acme has no dead letter with id " + globexLetter);
            assertThat(deadLetters
                            .purge(null, null, null, null, null, null, true, "acme", SecurityContext.NONE)
                            .getBody())
                    .containsEntry("purged", 2)
                    .containsEntry("tenant", "acme");
            assertThat(jdbc.queryForList("SELECT tenant FROM outbox_dead_letter", String.class))
                    .containsExactly("globex");
            // The default tenant has none of them: a purge in its name deletes nothing.
            assertThat(deadLetters
                            .purge(null, null, null, null, null, null, true, "(default)", SecurityContext.NONE)
                            .getBody())
                    .containsEntry("purged", 0);
            assertThat(tenants.paused("globex", true, SecurityContext.NONE).getBody())
                    .containsEntry("paused", true);
            assertThat(jdbc.queryForList("SELECT tenant FROM outbox_tenant WHERE paused", String.class))
                    .containsExactly("globex");
            assertThat(tenants.tenants(10))
                    .extracting(PostboxTenantsEndpoint.TenantSummary::tenant)
                    .containsExactly("globex");
            assertThat(tenants.tenant("globex").paused()).isTrue();
            assertThat(tenants.tenant("(default)").due()).isZero();

            // Jobs: acme can neither read nor cancel globex's (live or dead), the default tenant neither.
            PostboxJobsEndpoint jobs = new PostboxJobsEndpoint(admin, properties);
            Long globexJob = jdbc.queryForObject(
                    "INSERT INTO outbox_job (queue, kind, payload, tenant) VALUES ('default', 'bill', '{}', 'globex')"
                            + " RETURNING id",
                    Long.class);
            assertThat(jobs.job(globexLetter, "acme")).isNull();
            assertThat(jobs.job(globexJob, "acme")).isNull();
            assertThat(jobs.job(globexJob, "(default)")).isNull();
            assertThat(jobs.job(globexJob, "globex")).isNotNull();
            assertThat(jobs.job(globexLetter, null)).isNotNull();
            WebEndpointResponse<Map<String, Object>> cancel = jobs.cancel(globexJob, "acme", SecurityContext.NONE);
            assertThat(cancel.getStatus()).isEqualTo(404);
            assertThat(jdbc.queryForObject("SELECT count(*) FROM outbox_job WHERE id = ?", Long.class, globexJob))
                    .isOne();
        });
    }
}
