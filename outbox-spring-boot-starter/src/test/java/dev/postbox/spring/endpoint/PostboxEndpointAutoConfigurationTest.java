package dev.postbox.spring.endpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.postbox.Postbox;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.invoke.convert.ConversionServiceParameterValueMapper;
import org.springframework.boot.actuate.endpoint.web.EndpointMediaTypes;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.actuate.endpoint.web.annotation.WebEndpointDiscoverer;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

class PostboxEndpointAutoConfigurationTest {

    private static final String ALL_EXPOSED = "management.endpoints.web.exposure.include="
            + "postbox,postboxqueues,postboxjobs,postboxdeadletters,postboxschedules,postboxwebhooks,postboxtenants";
    private static final SecurityContext NONE = SecurityContext.NONE;

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(PostboxEndpointAutoConfiguration.class))
            .withBean(
                    Postbox.class,
                    () -> Postbox.builder(
                                    new DriverManagerDataSource("jdbc:postgresql://127.0.0.1:1/none?connectTimeout=1"))
                            .build());

    @Test
    void endpointPresentWhenExposed() {
        runner.withPropertyValues("management.endpoints.web.exposure.include=postbox")
                .run(context -> {
                    assertThat(context).hasSingleBean(PostboxEndpoint.class);
                    assertThat(context).doesNotHaveBean(PostboxJobsEndpoint.class);
                    assertThat(context.getBean(PostboxAdminProperties.class).isWriteEnabled())
                            .isFalse();
                });
    }

    @Test
    void eachResourceEndpointIsPresentWhenExposed() {
        runner.withPropertyValues(ALL_EXPOSED).run(context -> {
            assertThat(context).hasSingleBean(PostboxQueuesEndpoint.class);
            assertThat(context).hasSingleBean(PostboxJobsEndpoint.class);
            assertThat(context).hasSingleBean(PostboxDeadLettersEndpoint.class);
            assertThat(context).hasSingleBean(PostboxSchedulesEndpoint.class);
            assertThat(context).hasSingleBean(PostboxWebhooksEndpoint.class);
            assertThat(context).hasSingleBean(PostboxTenantsEndpoint.class);
        });
    }

    @Test
    void absentWhenNotExposed() {
        runner.run(context -> {
            assertThat(context).doesNotHaveBean(PostboxEndpoint.class);
            assertThat(context).doesNotHaveBean(PostboxDeadLettersEndpoint.class);
        });
    }

    @Test
    void absentWithoutTheActuatorOnTheClasspath() {
        runner.withPropertyValues("management.endpoints.web.exposure.include=postbox")
                .withClassLoader(new FilteredClassLoader(Endpoint.class))
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context).doesNotHaveBean(PostboxEndpoint.class);
                });
    }

    @Test
    void writeOperationsAreRefusedByDefaultWithAClearMessage() {
        runner.withPropertyValues(ALL_EXPOSED).run(context -> {
            PostboxQueuesEndpoint queues = context.getBean(PostboxQueuesEndpoint.class);
            PostboxJobsEndpoint jobs = context.getBean(PostboxJobsEndpoint.class);
            PostboxDeadLettersEndpoint deadLetters = context.getBean(PostboxDeadLettersEndpoint.class);
            PostboxSchedulesEndpoint schedules = context.getBean(PostboxSchedulesEndpoint.class);
            PostboxWebhooksEndpoint webhooks = context.getBean(PostboxWebhooksEndpoint.class);
            PostboxTenantsEndpoint tenants = context.getBean(PostboxTenantsEndpoint.class);
            List<WebEndpointResponse<Map<String, Object>>> responses = List.of(
                    deadLetters.replay(1L, null, NONE),
                    deadLetters.replayMatching("mail", null, null, null, null, null, null, null, NONE),
                    deadLetters.purge("mail", null, null, null, null, null, null, null, NONE),
                    jobs.cancel(1L, null, NONE),
                    jobs.cancel(1L, "acme", NONE),
                    deadLetters.replay(1L, "acme", NONE),
                    deadLetters.purge(null, null, null, null, null, null, true, "acme", NONE),
                    tenants.paused("acme", true, NONE),
                    queues.paused("mail", true, NONE),
                    queues.paused("mail", false, NONE),
                    schedules.paused("nightly", true, null, NONE),
                    webhooks.enabled("billing", false, null, null, NONE),
                    webhooks.reencryptSecrets(NONE));
            assertThat(responses).allSatisfy(response -> {
                assertThat(response.getStatus()).isEqualTo(PostboxEndpoint.STATUS_FORBIDDEN);
                assertThat(response.getBody().get("error").toString()).contains("postbox.admin.write-enabled=true");
            });
        });
    }

    @Test
    void operationsValidateTheirInputWithAMessageNamingTheParameter() {
        runner.withPropertyValues(ALL_EXPOSED, "postbox.admin.write-enabled=true")
                .run(context -> {
                    PostboxQueuesEndpoint queues = context.getBean(PostboxQueuesEndpoint.class);
                    PostboxDeadLettersEndpoint deadLetters = context.getBean(PostboxDeadLettersEndpoint.class);
                    assertThatThrownBy(() -> queues.paused(" ", true, NONE))
                            .isInstanceOf(InvalidEndpointRequestException.class)
                            .hasMessage("queue may not be blank");
                    assertThatThrownBy(() -> deadLetters.purge(" ", null, null, null, null, null, null, null, NONE))
                            .isInstanceOf(InvalidEndpointRequestException.class)
                            .hasMessageContaining("Give at least one of queue");
                    assertThatThrownBy(() -> deadLetters.deadLetters(null, null, null, null, null, null, 1001, null))
                            .isInstanceOf(InvalidEndpointRequestException.class)
                            .hasMessageContaining("limit must be between 1 and 1000, was 1001");
                    PostboxTenantsEndpoint tenants = context.getBean(PostboxTenantsEndpoint.class);
                    assertThatThrownBy(() -> tenants.paused("not a tenant", true, NONE))
                            .isInstanceOf(InvalidEndpointRequestException.class)
                            .hasMessageContaining("tenant 'not a tenant' is not a valid tenant id");
                    assertThatThrownBy(() -> tenants.tenants(0))
                            .isInstanceOf(InvalidEndpointRequestException.class)
                            .hasMessageContaining("limit must be between 1 and 1000, was 0");
                    assertThatThrownBy(() -> context.getBean(PostboxWebhooksEndpoint.class)
                                    .endpoints(null))
                            .isInstanceOf(InvalidEndpointRequestException.class)
                            .hasMessageContaining("add postbox-delivery-http");
                    assertThatThrownBy(() -> context.getBean(PostboxSchedulesEndpoint.class)
                                    .schedules(null, null))
                            .isInstanceOf(InvalidEndpointRequestException.class)
                            .hasMessageContaining("schedules are not configured");
                    assertThatThrownBy(() -> context.getBean(PostboxSchedulesEndpoint.class)
                                    .schedules(101, null))
                            .isInstanceOf(InvalidEndpointRequestException.class)
                            .hasMessage("limit (fires per schedule) must be between 0 and 100, was 101");
                    assertThatThrownBy(() -> context.getBean(PostboxWebhooksEndpoint.class)
                                    .enabled(" ", true, null, null, NONE))
                            .isInstanceOf(InvalidEndpointRequestException.class)
                            .hasMessage("endpoint may not be blank");
                });
    }

    @Test
    void operationsAreMappedToTheDocumentedPaths() {
        runner.withPropertyValues(ALL_EXPOSED).run(context -> {
            WebEndpointDiscoverer discoverer = new WebEndpointDiscoverer(
                    context,
                    new ConversionServiceParameterValueMapper(),
                    EndpointMediaTypes.DEFAULT,
                    List.of(),
                    List.of(),
                    List.of(),
                    List.of(),
                    List.of());
            assertThat(discoverer.getEndpoints().stream()
                            .flatMap(e -> e.getOperations().stream())
                            .map(o -> o.getRequestPredicate().getHttpMethod() + " "
                                    + o.getRequestPredicate().getPath())
                            .toList())
                    .containsExactlyInAnyOrder(
                            "GET postbox",
                            "GET postboxqueues",
                            "GET postboxqueues/{queue}",
                            "POST postboxqueues/{queue}",
                            "GET postboxjobs/{id}",
                            "GET postboxjobs",
                            "DELETE postboxjobs/{id}",
                            "GET postboxdeadletters",
                            "POST postboxdeadletters",
                            "POST postboxdeadletters/{id}",
                            "DELETE postboxdeadletters",
                            "GET postboxschedules",
                            "POST postboxschedules/{schedule}",
                            "GET postboxwebhooks",
                            "GET postboxwebhooks/{endpoint}",
                            "POST postboxwebhooks",
                            "POST postboxwebhooks/{endpoint}",
                            "GET postboxtenants",
                            "GET postboxtenants/{tenant}",
                            "POST postboxtenants/{tenant}");
        });
    }
}
