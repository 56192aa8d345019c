package dev.postbox.spring.endpoint;

import static org.assertj.core.api.Assertions.assertThat;

import dev.postbox.Postbox;
import dev.postbox.testing.TestDatabase;
import java.security.Principal;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.actuate.autoconfigure.endpoint.PropertiesEndpointAccessResolver;
import org.springframework.boot.actuate.endpoint.InvocationContext;
import org.springframework.boot.actuate.endpoint.OperationFilter;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.invoke.convert.ConversionServiceParameterValueMapper;
import org.springframework.boot.actuate.endpoint.web.EndpointMediaTypes;
import org.springframework.boot.actuate.endpoint.web.ExposableWebEndpoint;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.actuate.endpoint.web.WebOperation;
import org.springframework.boot.actuate.endpoint.web.annotation.WebEndpointDiscoverer;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.convert.ApplicationConversionService;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/**
 * The Postbox endpoints are read-only unless the operator grants more, and every write operation
 * leaves an audit line naming who did what. Operations are invoked as the web layer does: through
 * the discovered operation with its arguments by name.
 */
@ExtendWith(OutputCaptureExtension.class)
class PostboxEndpointAccessTest {

    private static final String EXPOSED = "management.endpoints.web.exposure.include="
            + "postbox,postboxqueues,postboxjobs,postboxdeadletters,postboxschedules,postboxwebhooks,postboxtenants";
    private static final String[] UNRESTRICTED = {
        "management.endpoint.postboxqueues.access=unrestricted",
        "management.endpoint.postboxjobs.access=unrestricted",
        "management.endpoint.postboxdeadletters.access=unrestricted",
        "management.endpoint.postboxschedules.access=unrestricted",
        "management.endpoint.postboxwebhooks.access=unrestricted",
        "management.endpoint.postboxtenants.access=unrestricted"
    };

    private final DataSource dataSource = TestDatabase.create();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(PostboxEndpointAutoConfiguration.class))
            .withBean(Postbox.class, () -> Postbox.builder(dataSource).build())
            // As SpringApplication does: lower-case enum values such as access=unrestricted bind.
            .withInitializer(
                    context -> context.getEnvironment().setConversionService(new ApplicationConversionService()));

    @AfterEach
    void dropDatabase() {
        TestDatabase.drop(dataSource);
    }

    @Test
    void writeOperationsAreNotMappedUnlessTheOperatorGrantsUnrestrictedAccess() {
        runner.withPropertyValues(EXPOSED)
                .run(context -> assertThat(paths(context))
                        .containsExactlyInAnyOrder(
                                "GET postbox",
                                "GET postboxqueues",
                                "GET postboxqueues/{queue}",
                                "GET postboxjobs/{id}",
                                "GET postboxjobs",
                                "GET postboxdeadletters",
                                "GET postboxschedules",
                                "GET postboxwebhooks",
                                "GET postboxwebhooks/{endpoint}",
                                "GET postboxtenants",
                                "GET postboxtenants/{tenant}"));
        runner.withPropertyValues(EXPOSED)
                .withPropertyValues(UNRESTRICTED)
                .run(context -> assertThat(paths(context))
                        .contains(
                                "POST postboxqueues/{queue}",
                                "DELETE postboxjobs/{id}",
                                "POST postboxdeadletters",
                                "POST postboxdeadletters/{id}",
                                "DELETE postboxdeadletters",
                                "POST postboxschedules/{schedule}",
                                "POST postboxwebhooks",
                                "POST postboxwebhooks/{endpoint}",
                                "POST postboxtenants/{tenant}"));
    }

    @Test
    void aWriteOperationLogsAnAuditLineWithThePrincipalAndWhatWasDone(CapturedOutput output) {
        runner.withPropertyValues(EXPOSED, "postbox.admin.write-enabled=true")
                .withPropertyValues(UNRESTRICTED)
                .run(context -> {
                    WebEndpointResponse<?> response =
                            invoke(context, "postboxqueues", "POST", "alice", Map.of("queue", "mail", "paused", true));
                    assertThat(response.getStatus()).isEqualTo(WebEndpointResponse.STATUS_OK);
                    assertThat(context.getBean(Postbox.class).admin().queues().stream()
                                    .filter(q -> q.queue().equals("mail"))
                                    .findFirst()
                                    .orElseThrow()
                                    .paused())
                            .isTrue();
                });
        assertThat(output.getOut())
                .containsPattern("postbox\\.audit.*principal=alice action=pause queue=mail.*status=200");
    }

    @Test
    void aRefusedOrAnonymousWriteIsAuditedToo(CapturedOutput output) {
        runner.withPropertyValues(EXPOSED).withPropertyValues(UNRESTRICTED).run(context -> {
            WebEndpointResponse<?> response =
                    invoke(context, "postboxdeadletters", "DELETE", null, Map.of("all", true));
            assertThat(response.getStatus()).isEqualTo(PostboxEndpoint.STATUS_FORBIDDEN);
        });
        assertThat(output.getOut())
                .containsPattern("postbox\\.audit.*principal=\\(anonymous\\) action=purge all=true.*status=403");
    }

    @Test
    void typedParametersAreConvertedFromTheRequestText() {
        runner.withPropertyValues(EXPOSED, "postbox.admin.write-enabled=true")
                .withPropertyValues(UNRESTRICTED)
                .run(context -> {
                    // The web layer hands over text; the operation receives an Instant and a long.
                    WebEndpointResponse<?> purged = invoke(
                            context,
                            "postboxdeadletters",
                            "DELETE",
                            "alice",
                            Map.of("deadFrom", "2026-01-31T12:00:00Z", "kind", "mail"));
                    assertThat(purged.getStatus()).isEqualTo(WebEndpointResponse.STATUS_OK);
                    WebEndpointResponse<?> cancelled =
                            invoke(context, "postboxjobs", "DELETE", "alice", Map.of("id", "42"));
                    assertThat(cancelled.getStatus()).isEqualTo(WebEndpointResponse.STATUS_NOT_FOUND);
                });
    }

    private static WebEndpointResponse<?> invoke(
            AssertableApplicationContext context,
            String endpointId,
            String method,
            @Nullable String user,
            Map<String, Object> arguments) {
        WebOperation write = endpoint(context, endpointId).getOperations().stream()
                .filter(o -> o.getRequestPredicate().getHttpMethod().name().equals(method))
                .filter(o -> o.getRequestPredicate().getPath().contains("{") == hasSelector(o, arguments))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no " + method + " operation mapped on " + endpointId));
        Principal principal = user == null ? null : () -> user;
        SecurityContext security = new SecurityContext() {
            @Override
            public @Nullable Principal getPrincipal() {
                return principal;
            }

            @Override
            public boolean isUserInRole(String role) {
                return false;
            }
        };
        return (WebEndpointResponse<?>) write.invoke(new InvocationContext(security, arguments));
    }

    /** Whether the arguments name the operation's path selector (so POST x and POST x/{id} differ). */
    private static boolean hasSelector(WebOperation operation, Map<String, Object> arguments) {
        String path = operation.getRequestPredicate().getPath();
        int open = path.indexOf('{');
        return open >= 0 && arguments.containsKey(path.substring(open + 1, path.indexOf('}')));
    }

    private static List<String> paths(AssertableApplicationContext context) {
        return discoverer(context).getEndpoints().stream()
                .flatMap(e -> e.getOperations().stream())
                .map(o -> o.getRequestPredicate().getHttpMethod() + " "
                        + o.getRequestPredicate().getPath())
                .toList();
    }

    private static ExposableWebEndpoint endpoint(AssertableApplicationContext context, String id) {
        return discoverer(context).getEndpoints().stream()
                .filter(e -> e.getEndpointId().toString().equals(id))
                .findFirst()
                .orElseThrow();
    }

    private static WebEndpointDiscoverer discoverer(AssertableApplicationContext context) {
        OperationFilter<WebOperation> byAccess =
                OperationFilter.byAccess(new PropertiesEndpointAccessResolver(context.getEnvironment()));
        return new WebEndpointDiscoverer(
                context,
                new ConversionServiceParameterValueMapper(),
                EndpointMediaTypes.DEFAULT,
                List.of(),
                List.of(),
                List.of(),
                List.of(),
                List.of(byAccess));
    }
}
