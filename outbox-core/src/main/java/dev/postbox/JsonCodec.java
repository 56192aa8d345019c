package dev.postbox;

/**
 * Turns payloads into JSON and back. The default is Jackson 3 ({@link #jackson()}); implement this
 * interface to use another mapper, for example a Jackson 2 {@code ObjectMapper} on Spring Boot 3.
 */
public interface JsonCodec {

    /** Serialises a payload object to a JSON document. */
    String toJson(Object value);

    /** Reads a JSON document into the given type. */
    <T> T fromJson(String json, Class<T> type);

    /**
     * Checks that the text is one well-formed JSON document.
     *
     * @throws IllegalArgumentException naming the problem when it is not
     */
    void validate(String json);

    /** A codec backed by a default Jackson 3 {@code JsonMapper}. */
    static JsonCodec jackson() {
        return new dev.postbox.internal.JacksonJsonCodec(tools.jackson.databind.json.JsonMapper.builder()
                .findAndAddModules()
                .build());
    }

    /** A codec backed by the given Jackson 3 mapper (for example Spring Boot's). */
    static JsonCodec jackson(tools.jackson.databind.ObjectMapper mapper) {
        return new dev.postbox.internal.JacksonJsonCodec(mapper);
    }
}
