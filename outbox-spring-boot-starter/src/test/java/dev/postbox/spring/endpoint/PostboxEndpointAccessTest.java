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
 * The {@code postbox} endpoint is read-only unless the operator grants more, and every write
 * operation leaves an audit line naming who did what.
 */
@ExtendWith(OutputCaptureExtension.class)
class PostboxEndpointAccessTest {

    private static final String EXPOSED = "management.endpoints.web.exposure.include=postbox";

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
                                "GET postbox", "GET postbox/{resource}", "GET postbox/{resource}/{id}"));
        runner.withPropertyValues(EXPOSED, "management.endpoint.postbox.access=unrestricted")
                .run(context -> assertThat(paths(context)).contains("POST postbox/{action}"));
    }

    @Test
    void aWriteOperationLogsAnAuditLineWithThePrincipalAndWhatWasDone(CapturedOutput output) {
        runner.withPropertyValues(
                        EXPOSED, "management.endpoint.postbox.access=unrestricted", "postbox.admin.write-enabled=true")
                .run(context -> {
                    WebEndpointResponse<?> response =
                            invokeWrite(context, "alice", Map.of("action", "pause", "queue", "mail"));
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
        runner.withPropertyValues(EXPOSED, "management.endpoint.postbox.access=unrestricted")
                .run(context -> {
                    WebEndpointResponse<?> response =
                            invokeWrite(context, null, Map.of("action", "purge", "all", true));
                    assertThat(response.getStatus()).isEqualTo(PostboxEndpoint.STATUS_FORBIDDEN);
                });
        assertThat(output.getOut())
                .containsPattern("postbox\\.audit.*principal=\\(anonymous\\) action=purge all=true.*status=403");
    }

    private static WebEndpointResponse<?> invokeWrite(
            AssertableApplicationContext context, @Nullable String user, Map<String, Object> arguments) {
        WebOperation write = endpoint(context).getOperations().stream()
                .filter(o -> o.getRequestPredicate().getHttpMethod().name().equals("POST"))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no write operation mapped"));
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

    private static List<String> paths(AssertableApplicationContext context) {
        return endpoint(context).getOperations().stream()
                .map(o -> o.getRequestPredicate().getHttpMethod() + " "
                        + o.getRequestPredicate().getPath())
                .toList();
    }

    private static ExposableWebEndpoint endpoint(AssertableApplicationContext context) {
        OperationFilter<WebOperation> byAccess =
                OperationFilter.byAccess(new PropertiesEndpointAccessResolver(context.getEnvironment()));
        WebEndpointDiscoverer discoverer = new WebEndpointDiscoverer(
                context,
                new ConversionServiceParameterValueMapper(),
                EndpointMediaTypes.DEFAULT,
                List.of(),
                List.of(),
                List.of(),
                List.of(),
                List.of(byAccess));
        return discoverer.getEndpoints().stream()
                .filter(e -> e.getEndpointId().toString().equals("postbox"))
                .findFirst()
                .orElseThrow();
    }
}
