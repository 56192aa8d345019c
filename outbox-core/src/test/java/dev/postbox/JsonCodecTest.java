package dev.postbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.reflect.InvocationTargetException;
import java.math.BigDecimal;
import java.net.URL;
import java.net.URLClassLoader;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Both Jackson adapters read and write the same JSON for what Postbox stores (records, {@code Map}
 * headers, instants), and their failures name the place and the problem without quoting the
 * payload. {@link JsonCodec#jackson()} picks Jackson 3 first, then Jackson 2, and names both
 * artifacts when neither is there.
 */
class JsonCodecTest {

    record Line(String sku, int quantity, BigDecimal price) {}

    record Order(long id, String customer, List<Line> lines, Instant placedAt, Map<String, String> tags) {}

    record Payment(String card, int amount) {}

    static final String SECRET = "4111-1111-1111-1111";

    static Stream<JsonCodec> codecs() {
        return Stream.of(Jackson3JsonCodec.ofDefaults(), Jackson2JsonCodec.ofDefaults());
    }

    static Order order() {
        Map<String, String> tags = new LinkedHashMap<>();
        tags.put("channel", "web");
        tags.put("traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
        return new Order(
                42L,
                "Zoë",
                List.of(new Line("A-1", 2, new BigDecimal("12.50")), new Line("B-7", 1, new BigDecimal("0.10"))),
                Instant.parse("2024-03-31T01:30:00.123456Z"),
                tags);
    }

    @ParameterizedTest
    @MethodSource("codecs")
    void recordsRoundTripWithInstantsAsIsoText(JsonCodec codec) {
        String json = codec.toJson(order());

        assertThat(json).contains("\"placedAt\":\"2024-03-31T01:30:00.123456Z\"");
        assertThat(json).contains("\"price\":12.50");
        assertThat(codec.fromJson(json, Order.class)).isEqualTo(order());
    }

    @Test
    void bothAdaptersWriteTheSameDocument() {
        Map<String, Object> jackson3 = Jackson3JsonCodec.ofDefaults()
                .fromJson(Jackson3JsonCodec.ofDefaults().toJson(order()), Map.class);
        Map<String, Object> jackson2 = Jackson3JsonCodec.ofDefaults()
                .fromJson(Jackson2JsonCodec.ofDefaults().toJson(order()), Map.class);
        assertThat(jackson2).isEqualTo(jackson3);
        // and each reads the other's
        assertThat(Jackson2JsonCodec.ofDefaults()
                        .fromJson(Jackson3JsonCodec.ofDefaults().toJson(order()), Order.class))
                .isEqualTo(order());
        assertThat(Jackson3JsonCodec.ofDefaults()
                        .fromJson(Jackson2JsonCodec.ofDefaults().toJson(order()), Order.class))
                .isEqualTo(order());
    }

    @ParameterizedTest
    @MethodSource("codecs")
    void headersAreAMapOfStrings(JsonCodec codec) {
        Map<String, String> headers = Map.of("traceparent", "00-abc-def-01", "x-tenant", "ä/ß \"quoted\"");

        String json = codec.toJson(headers);

        assertThat(codec.fromJson(json, Map.class)).isEqualTo(headers);
    }

    @ParameterizedTest
    @MethodSource("codecs")
    void unknownPropertiesAreIgnoredSoThatProducersMayAddFields(JsonCodec codec) {
        Payment payment = codec.fromJson("{\"card\":\"x\",\"amount\":5,\"addedLater\":true}", Payment.class);
        assertThat(payment).isEqualTo(new Payment("x", 5));
    }

    @ParameterizedTest
    @MethodSource("codecs")
    void aValueOfTheWrongTypeIsNamedByItsPlaceNeverQuoted(JsonCodec codec) {
        String json = "{\n  \"card\": \"x\",\n  \"amount\": \"" + SECRET + "\"\n}";

        assertThatThrownBy(() -> codec.fromJson(json, Payment.class))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("payload cannot be read as " + Payment.class.getName())
                .hasMessageContaining("a value that is not a valid int at $.amount")
                .hasMessageContaining("(line 3, column")
                .hasMessageNotContaining(SECRET)
                .hasMessageNotContaining("4111")
                .hasNoCause();
    }

    @ParameterizedTest
    @MethodSource("codecs")
    void malformedJsonIsNamedByLineAndColumnNeverQuoted(JsonCodec codec) {
        String json = "{\"card\": \"" + SECRET + "\", amount: 3}";

        assertThatThrownBy(() -> codec.validate(json))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("payload is not valid JSON: malformed JSON (line 1, column")
                .hasMessageContaining("well-formed JSON document")
                .hasMessageNotContaining(SECRET)
                .hasMessageNotContaining("amount")
                .hasNoCause();
        assertThatThrownBy(() -> codec.fromJson(json, Payment.class))
                .hasMessageContaining("malformed JSON")
                .hasMessageNotContaining(SECRET);
        assertThatThrownBy(() -> codec.validate("{\"a\":1} {\"b\":2}")).hasMessageContaining("not valid JSON");
    }

    @ParameterizedTest
    @MethodSource("codecs")
    void aNullPrimitiveAndAValueInAListAreNamedByPath(JsonCodec codec) {
        assertThatThrownBy(() -> codec.fromJson("{\"card\":\"" + SECRET + "\",\"amount\":null}", Payment.class))
                .hasMessageContaining("a value that cannot become int at $.amount")
                .hasMessageNotContaining(SECRET);
        assertThatThrownBy(() -> codec.fromJson(
                        "{\"id\":1,\"customer\":\"c\",\"lines\":[{\"sku\":\"s\",\"quantity\":1,\"price\":1},"
                                + "{\"sku\":\"" + SECRET + "\",\"quantity\":[1],\"price\":1}],"
                                + "\"placedAt\":\"2024-01-01T00:00:00Z\",\"tags\":{}}",
                        Order.class))
                .hasMessageContaining("at $.lines[1].quantity")
                .hasMessageNotContaining(SECRET);
    }

    @ParameterizedTest
    @MethodSource("codecs")
    void anObjectWhoseAccessorThrowsIsNamedWithoutTheExceptionsMessage(JsonCodec codec) {
        assertThatThrownBy(() -> codec.toJson(new Throwing("x")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("payload of type " + Throwing.class.getName() + " cannot be written as JSON:"
                        + " the object's own code threw java.lang.IllegalStateException at $.card")
                .hasMessageNotContaining(SECRET)
                .hasNoCause();
    }

    record Throwing(String card) {
        @Override
        public String card() {
            throw new IllegalStateException("card " + SECRET + " is blocked");
        }
    }

    @Test
    void theDefaultIsJackson3WhenBothArePresent() {
        assertThat(JsonCodec.jackson()).isInstanceOf(Jackson3JsonCodec.class);
    }

    @Test
    void theDefaultIsJackson2WhenOnlyJackson2IsPresent() throws Exception {
        try (URLClassLoader loader = isolated(
                com.fasterxml.jackson.databind.ObjectMapper.class,
                com.fasterxml.jackson.core.JsonParser.class,
                com.fasterxml.jackson.annotation.JsonProperty.class,
                com.fasterxml.jackson.datatype.jsr310.JavaTimeModule.class)) {
            Object codec = defaultCodecIn(loader);
            assertThat(codec.getClass().getName()).isEqualTo(Jackson2JsonCodec.class.getName());
            Object json = codec.getClass()
                    .getMethod("toJson", Object.class)
                    .invoke(codec, Map.of("at", Instant.parse("2024-01-01T00:00:00Z")));
            assertThat(json).isEqualTo("{\"at\":\"2024-01-01T00:00:00Z\"}");
        }
    }

    @Test
    void withoutJacksonTheErrorNamesBothArtifacts() throws Exception {
        try (URLClassLoader loader = isolated()) {
            assertThatThrownBy(() -> defaultCodecIn(loader))
                    .isInstanceOf(InvocationTargetException.class)
                    .cause()
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("tools.jackson.core:jackson-databind")
                    .hasMessageContaining("com.fasterxml.jackson.core:jackson-databind")
                    .hasMessageContaining("JsonCodec");
        }
    }

    /** A class loader with Postbox's own classes and the jars of the given classes only. */
    private static URLClassLoader isolated(Class<?>... from) throws Exception {
        List<URL> urls = new java.util.ArrayList<>();
        urls.add(JsonCodec.class.getProtectionDomain().getCodeSource().getLocation());
        for (Class<?> c : from) {
            urls.add(c.getProtectionDomain().getCodeSource().getLocation());
        }
        return new URLClassLoader(urls.toArray(URL[]::new), ClassLoader.getPlatformClassLoader());
    }

    private static Object defaultCodecIn(ClassLoader loader) throws Exception {
        Class<?> codec = Class.forName(JsonCodec.class.getName(), true, loader);
        assertThat(codec).isNotSameAs(JsonCodec.class);
        Thread thread = Thread.currentThread();
        ClassLoader previous = thread.getContextClassLoader();
        thread.setContextClassLoader(loader); // Jackson finds its modules through it, as in an application
        try {
            return codec.getMethod("jackson").invoke(null);
        } finally {
            thread.setContextClassLoader(previous);
        }
    }
}
