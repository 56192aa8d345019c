package dev.postbox;

import dev.postbox.internal.JacksonLibraries;

/**
 * Turns payloads into JSON and back: the one way Postbox reaches JSON. Postbox ships an adapter for
 * Jackson 3 ({@link Jackson3JsonCodec}, {@code tools.jackson.databind}) and one for Jackson 2
 * ({@link Jackson2JsonCodec}, {@code com.fasterxml.jackson.databind}); both libraries are optional
 * dependencies of the core, so the application brings the one it uses. Implement this interface to
 * use another JSON library.
 *
 * <p>Error messages of a codec name the type, the place in the document (a path such as {@code
 * $.items[2].quantity}, line and column) and the kind of problem, never a value from the document:
 * payloads may hold personal data and are not logged.
 */
public interface JsonCodec {

    /**
     * Serialises a payload object to a JSON document.
     *
     * @throws IllegalArgumentException naming the type and the problem when it cannot be written
     */
    String toJson(Object value);

    /**
     * Reads a JSON document into the given type.
     *
     * @throws IllegalArgumentException naming the type, the place and the problem when it cannot be
     *     read
     */
    <T> T fromJson(String json, Class<T> type);

    /**
     * Checks that the text is one well-formed JSON document.
     *
     * @throws IllegalArgumentException naming the place and the problem when it is not
     */
    void validate(String json);

    /**
     * A codec on a default mapper of the Jackson found on the class path: Jackson 3 when {@code
     * tools.jackson.core:jackson-databind} is present, else Jackson 2 ({@code
     * com.fasterxml.jackson.core:jackson-databind}). Pass the application's own mapper with {@link
     * Jackson3JsonCodec#of} or {@link Jackson2JsonCodec#of} instead when it has one.
     *
     * @throws IllegalStateException naming both artifacts when neither Jackson is on the class path
     */
    static JsonCodec jackson() {
        return switch (JacksonLibraries.detect(JsonCodec.class.getClassLoader())) {
            case JACKSON_3 -> Jackson3JsonCodec.ofDefaults();
            case JACKSON_2 -> Jackson2JsonCodec.ofDefaults();
        };
    }
}
