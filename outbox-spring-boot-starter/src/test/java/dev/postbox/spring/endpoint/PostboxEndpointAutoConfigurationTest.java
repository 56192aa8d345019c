package dev.postbox.spring.endpoint;

import static org.assertj.core.api.Assertions.assertThat;

import dev.postbox.Postbox;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.invoke.convert.ConversionServiceParameterValueMapper;
import org.springframework.boot.actuate.endpoint.web.EndpointMediaTypes;
import org.springframework.boot.actuate.endpoint.web.ExposableWebEndpoint;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.actuate.endpoint.web.annotation.WebEndpointDiscoverer;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

class PostboxEndpointAutoConfigurationTest {

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
                    assertThat(context.getBean(PostboxAdminProperties.class).isWriteEnabled())
                            .isFalse();
                });
    }

    @Test
    void absentWhenNotExposed() {
        runner.run(context -> assertThat(context).doesNotHaveBean(PostboxEndpoint.class));
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
        runner.withPropertyValues("management.endpoints.web.exposure.include=postbox")
                .run(context -> {
                    PostboxEndpoint endpoint = context.getBean(PostboxEndpoint.class);
                    for (String action : new String[] {"replay", "purge", "cancel", "pause", "resume"}) {
                        WebEndpointResponse<Map<String, Object>> response =
                                endpoint.action(action, 1L, "mail", null, null, null, null, null, null);
                        assertThat(response.getStatus()).isEqualTo(PostboxEndpoint.STATUS_FORBIDDEN);
                        assertThat(response.getBody().get("error").toString())
                                .contains("postbox.admin.write-enabled=true");
                    }
                });
    }

    @Test
    void writeOperationsValidateTheirInputWhenEnabled() {
        runner.withPropertyValues(
                        "management.endpoints.web.exposure.include=postbox", "postbox.admin.write-enabled=true")
                .run(context -> {
                    PostboxEndpoint endpoint = context.getBean(PostboxEndpoint.class);
                    assertThat(endpoint.action("explode", null, null, null, null, null, null, null, null)
                                    .getStatus())
                            .isEqualTo(WebEndpointResponse.STATUS_BAD_REQUEST);
                    assertThat(endpoint.action("pause", null, " ", null, null, null, null, null, null)
                                    .getStatus())
                            .isEqualTo(WebEndpointResponse.STATUS_BAD_REQUEST);
                    assertThat(endpoint.action("cancel", null, null, null, null, null, null, null, null)
                                    .getStatus())
                            .isEqualTo(WebEndpointResponse.STATUS_BAD_REQUEST);
                });
    }

    @Test
    void operationsAreMappedToTheDocumentedPaths() {
        runner.withPropertyValues("management.endpoints.web.exposure.include=postbox")
                .run(context -> {
                    WebEndpointDiscoverer discoverer = new WebEndpointDiscoverer(
                            context,
                            new ConversionServiceParameterValueMapper(),
                            EndpointMediaTypes.DEFAULT,
                            List.of(),
                            List.of(),
                            List.of(),
                            List.of(),
                            List.of());
                    ExposableWebEndpoint endpoint = discoverer.getEndpoints().stream()
                            .filter(e -> e.getEndpointId().toString().equals("postbox"))
                            .findFirst()
                            .orElseThrow();
                    assertThat(endpoint.getOperations().stream()
                                    .map(o -> o.getRequestPredicate().getHttpMethod() + " "
                                            + o.getRequestPredicate().getPath())
                                    .toList())
                            .containsExactlyInAnyOrder(
                                    "GET postbox",
                                    "GET postbox/{resource}",
                                    "GET postbox/{resource}/{id}",
                                    "POST postbox/{action}");
                });
    }
}
