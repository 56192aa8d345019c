package dev.postbox.spring.endpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import com.zaxxer.hikari.HikariDataSource;
import dev.postbox.cron.ScheduleDefinition;
import dev.postbox.cron.ScheduleRegistry;
import dev.postbox.cron.StoredSchedule;
import dev.postbox.spring.endpoint.WebhookEndpointAdmin.EnableView;
import dev.postbox.spring.endpoint.WebhookEndpointAdmin.WebhookEndpointView;
import dev.postbox.spring.schedule.PostboxScheduleAdmin;
import dev.postbox.spring.schedule.PostboxScheduleAdmin.ScheduleView;
import dev.postbox.testing.TestDatabase;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;

/**
 * Issue 18, admin writes are scoped: with {@code tenant}, the webhook endpoints and schedules
 * actuator endpoints show and change only that tenant's endpoints and schedules; another tenant's is
 * not found and no write reaches it. (Jobs and dead letters: {@code TenantIntegrationTest}.)
 */
class TenantScopedEndpointsTest {

    private static final SecurityContext NONE = SecurityContext.NONE;

    private final PostboxAdminProperties properties = new PostboxAdminProperties();

    TenantScopedEndpointsTest() {
        properties.setWriteEnabled(true);
    }

    private static WebhookEndpointView endpoint(String name, String tenant) {
        return new WebhookEndpointView(
                name,
                "https://example.com/" + name,
                "enabled",
                null,
                null,
                0,
                null,
                null,
                0,
                null,
                Set.of("*"),
                1,
                Set.of(),
                null,
                tenant);
    }

    /** Three endpoints (acme's, globex's, the default tenant's); records the writes that reach them. */
    private static final class Webhooks implements WebhookEndpointAdmin {
        final List<String> writes = new ArrayList<>();
        final List<WebhookEndpointView> all =
                List.of(endpoint("acme-orders", "acme"), endpoint("audit", null), endpoint("globex-orders", "globex"));

        @Override
        public List<WebhookEndpointView> list() {
            return all;
        }

        @Override
        public Optional<WebhookEndpointView> get(String name) {
            return all.stream().filter(e -> e.name().equals(name)).findFirst();
        }

        @Override
        public EnableView enable(String name) {
            writes.add("enable " + name);
            return new EnableView(true, 0, 0);
        }

        @Override
        public EnableView enableForTenant(String name, @Nullable String tenant) {
            writes.add("enable " + name + " for " + (tenant == null ? "(default)" : tenant));
            return new EnableView(true, 0, 0);
        }

        @Override
        public boolean disable(String name, String reason) {
            writes.add("disable " + name);
            return true;
        }

        @Override
        public boolean disableForTenant(String name, @Nullable String tenant, String reason) {
            writes.add("disable " + name + " for " + (tenant == null ? "(default)" : tenant));
            return true;
        }

        @Override
        public int reencryptSecrets() {
            return 0;
        }

        @Override
        public String rotateSecret(String name) {
            writes.add("rotate " + name);
            return "new secret of " + name;
        }

        @Override
        public int retireOldSecrets(String name) {
            writes.add("retire " + name);
            return 0;
        }
    }

    @Test
    void aTenantsWebhookRequestsSeeAndChangeOnlyItsOwnEndpoints() {
        Webhooks admin = new Webhooks();
        PostboxWebhooksEndpoint webhooks = new PostboxWebhooksEndpoint(admin, properties);

        assertThat(webhooks.endpoints("acme"))
                .extracting(WebhookEndpointView::name)
                .containsExactly("acme-orders");
        assertThat(webhooks.endpoints("(default)"))
                .extracting(WebhookEndpointView::name)
                .containsExactly("audit");
        assertThat(webhooks.endpoints(null)).hasSize(3);
        assertThat(webhooks.endpoint("globex-orders", "acme")).isNull();
        assertThat(webhooks.endpoint("acme-orders", "acme")).isNotNull();

        WebEndpointResponse<Map<String, Object>> refused = webhooks.enabled("globex-orders", false, null, "acme", NONE);
        assertThat(refused.getStatus()).isEqualTo(404);
        assertThat(refused.getBody()).containsEntry("error", "tenant acme has no webhook endpoint 'globex-orders'");
        assertThat(webhooks.enabled("audit", true, null, "acme", NONE).getStatus())
                .isEqualTo(404);
        assertThat(webhooks.enabled("acme-orders", false, null, "acme", NONE).getStatus())
                .isEqualTo(200);
        assertThat(webhooks.enabled("audit", true, null, "(default)", NONE).getStatus())
                .isEqualTo(200);
        // The writes carry the tenant down to the statements, not only the check before them.
        assertThat(admin.writes).containsExactly("disable acme-orders for acme", "enable audit for (default)");

        assertThatThrownBy(() -> webhooks.endpoints("not a tenant"))
                .isInstanceOf(InvalidEndpointRequestException.class)
                .hasMessageContaining("tenant 'not a tenant' is not a valid tenant id");
    }

    /**
     * Three stored schedules (acme's, globex's, the default tenant's) on a real database: the
     * endpoint scopes through the core's registry, whose statements carry the tenant.
     */
    @Test
    void aTenantsScheduleRequestsSeeAndChangeOnlyItsOwnSchedules() {
        HikariDataSource database = TestDatabase.create();
        try {
            ScheduleRegistry registry = new ScheduleRegistry(database);
            registry.register(List.of(
                    schedule("acme-report", "acme"), schedule("cleanup", null), schedule("globex-report", "globex")));
            PostboxSchedulesEndpoint schedules =
                    new PostboxSchedulesEndpoint(new PostboxScheduleAdmin(registry), properties);

            assertThat(schedules.schedules(0, "globex"))
                    .extracting(ScheduleView::name, ScheduleView::tenant)
                    .containsExactly(tuple("globex-report", "globex"));
            assertThat(schedules.schedules(0, "(default)"))
                    .extracting(ScheduleView::name)
                    .containsExactly("cleanup");
            assertThat(schedules.schedules(0, null)).hasSize(3);

            WebEndpointResponse<Map<String, Object>> refused = schedules.paused("acme-report", true, "globex", NONE);
            assertThat(refused.getStatus()).isEqualTo(404);
            assertThat(refused.getBody()).containsEntry("error", "Tenant globex has no schedule named 'acme-report'");
            assertThat(schedules.paused("cleanup", true, "globex", NONE).getStatus())
                    .isEqualTo(404);
            assertThat(schedules.paused("globex-report", true, "globex", NONE).getStatus())
                    .isEqualTo(200);
            assertThat(schedules.paused("cleanup", true, "(default)", NONE).getStatus())
                    .isEqualTo(200);
            assertThat(registry.schedules(0))
                    .extracting(StoredSchedule::name, StoredSchedule::paused)
                    .containsExactly(tuple("acme-report", false), tuple("cleanup", true), tuple("globex-report", true));
            assertThat(schedules.paused("acme-report", true, null, NONE).getStatus())
                    .isEqualTo(200);
            assertThat(registry.schedule("acme-report", 0).orElseThrow().paused())
                    .isTrue();
        } finally {
            TestDatabase.drop(database);
        }
    }

    private static ScheduleDefinition schedule(String name, String tenant) {
        return ScheduleDefinition.builder(name)
                .cron("0 0 * * *")
                .kind("report")
                .tenant(tenant)
                .build();
    }
}
