package dev.postbox.spring.boot3;

import static org.assertj.core.api.Assertions.assertThat;

import dev.postbox.Jackson2JsonCodec;
import dev.postbox.JsonCodec;
import dev.postbox.spring.PostboxAutoConfiguration;
import dev.postbox.testing.TestDatabase;
import java.time.Instant;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootVersion;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.jackson.JacksonAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.SpringVersion;
import org.springframework.util.ClassUtils;

/**
 * On Spring Boot 3.5 (Spring Framework 6.2, Jackson 2 only, as this module's tests run), Postbox's
 * codec is Jackson 2 on the {@code ObjectMapper} that Boot's Jackson auto-configuration builds from
 * the application's {@code spring.jackson.*} settings.
 */
class Jackson2OnBoot3Test {

    record Placed(long orderId, Instant placedAt) {}

    private static final Placed PLACED = new Placed(7, Instant.parse("2024-05-06T07:08:09Z"));

    @Test
    void runsOnSpringBoot35WithJackson2Alone() {
        assertThat(SpringBootVersion.getVersion()).startsWith("3.5.");
        assertThat(SpringVersion.getVersion()).startsWith("6.2.");
        ClassLoader loader = getClass().getClassLoader();
        assertThat(ClassUtils.isPresent("com.fasterxml.jackson.databind.ObjectMapper", loader))
                .isTrue();
        assertThat(ClassUtils.isPresent("tools.jackson.databind.json.JsonMapper", loader))
                .as("Jackson 3 is not on the test class path")
                .isFalse();
        assertThat(JsonCodec.jackson()).isInstanceOf(Jackson2JsonCodec.class);
    }

    @Test
    void usesTheObjectMapperBootConfigures() {
        DataSource database = TestDatabase.create();
        try {
            new ApplicationContextRunner()
                    .withConfiguration(
                            AutoConfigurations.of(JacksonAutoConfiguration.class, PostboxAutoConfiguration.class))
                    .withBean("dataSource", DataSource.class, () -> database)
                    .withPropertyValues(
                            "postbox.worker.enabled=false", "spring.jackson.property-naming-strategy=SNAKE_CASE")
                    .run(context -> {
                        assertThat(context).hasNotFailed();
                        JsonCodec codec = context.getBean(JsonCodec.class);
                        assertThat(codec).isInstanceOf(Jackson2JsonCodec.class);
                        assertThat(codec.toJson(PLACED))
                                .isEqualTo("{\"order_id\":7,\"placed_at\":\"2024-05-06T07:08:09Z\"}");
                        assertThat(codec.fromJson(
                                        "{\"order_id\":7,\"placed_at\":\"2024-05-06T07:08:09Z\"}", Placed.class))
                                .isEqualTo(PLACED);
                    });
        } finally {
            TestDatabase.drop(database);
        }
    }
}
