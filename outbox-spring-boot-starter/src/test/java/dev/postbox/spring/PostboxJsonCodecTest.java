package dev.postbox.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.postbox.Jackson2JsonCodec;
import dev.postbox.Jackson3JsonCodec;
import dev.postbox.JsonCodec;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** The starter's codec is the application's configured mapper when it has one, Jackson 3 first. */
class PostboxJsonCodecTest {

    record Placed(long orderId, Instant placedAt) {}

    private static final Placed PLACED = new Placed(7, Instant.parse("2024-05-06T07:08:09Z"));

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(PostboxAutoConfiguration.class))
            .withPropertyValues("postbox.worker.enabled=false");

    @Test
    void usesTheApplicationsJackson3JsonMapper() {
        TestDataSources.withSchema(runner)
                .withBean(
                        tools.jackson.databind.json.JsonMapper.class,
                        () -> tools.jackson.databind.json.JsonMapper.builder()
                                .propertyNamingStrategy(tools.jackson.databind.PropertyNamingStrategies.SNAKE_CASE)
                                .build())
                .withBean(
                        com.fasterxml.jackson.databind.ObjectMapper.class,
                        com.fasterxml.jackson.databind.ObjectMapper::new)
                .run(context -> {
                    JsonCodec codec = context.getBean(JsonCodec.class);
                    assertThat(codec).isInstanceOf(Jackson3JsonCodec.class);
                    assertThat(codec.toJson(PLACED))
                            .isEqualTo("{\"order_id\":7,\"placed_at\":\"2024-05-06T07:08:09Z\"}");
                });
    }

    @Test
    void withoutAMapperBeanUsesJackson3Defaults() {
        TestDataSources.withSchema(runner).run(context -> {
            JsonCodec codec = context.getBean(JsonCodec.class);
            assertThat(codec).isInstanceOf(Jackson3JsonCodec.class);
            assertThat(codec.toJson(PLACED)).isEqualTo("{\"orderId\":7,\"placedAt\":\"2024-05-06T07:08:09Z\"}");
        });
    }

    @Test
    void withoutJackson3UsesTheApplicationsJackson2ObjectMapper() {
        TestDataSources.withSchema(runner)
                .withClassLoader(new FilteredClassLoader("tools.jackson."))
                .withBean(
                        com.fasterxml.jackson.databind.ObjectMapper.class,
                        () -> com.fasterxml.jackson.databind.json.JsonMapper.builder()
                                .findAndAddModules()
                                .propertyNamingStrategy(
                                        com.fasterxml.jackson.databind.PropertyNamingStrategies.SNAKE_CASE)
                                .disable(com.fasterxml.jackson.databind.SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
                                .build())
                .run(context -> {
                    JsonCodec codec = context.getBean(JsonCodec.class);
                    assertThat(codec).isInstanceOf(Jackson2JsonCodec.class);
                    assertThat(codec.toJson(PLACED))
                            .isEqualTo("{\"order_id\":7,\"placed_at\":\"2024-05-06T07:08:09Z\"}");
                });
    }

    @Test
    void anApplicationCodecWins() {
        JsonCodec own = Jackson2JsonCodec.ofDefaults();
        TestDataSources.withSchema(runner)
                .withBean("myCodec", JsonCodec.class, () -> own)
                .run(context -> assertThat(context.getBean(JsonCodec.class)).isSameAs(own));
    }
}
