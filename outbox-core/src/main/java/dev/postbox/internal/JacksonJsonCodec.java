package dev.postbox.internal;

import dev.postbox.JsonCodec;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.ObjectMapper;

/** {@link JsonCodec} on a Jackson 3 mapper. */
public final class JacksonJsonCodec implements JsonCodec {

    private final ObjectMapper mapper;

    public JacksonJsonCodec(ObjectMapper mapper) {
        this.mapper = Require.notNull(mapper, "mapper");
    }

    @Override
    public String toJson(Object value) {
        try {
            return mapper.writeValueAsString(value);
        } catch (JacksonException e) {
            throw new IllegalArgumentException(
                    "payload of type " + value.getClass().getName() + " cannot be written as JSON: "
                            + e.getOriginalMessage(),
                    e);
        }
    }

    @Override
    public <T> T fromJson(String json, Class<T> type) {
        try {
            return mapper.readValue(json, type);
        } catch (JacksonException e) {
            throw new IllegalArgumentException(
                    "payload cannot be read as " + type.getName() + ": " + e.getOriginalMessage(), e);
        }
    }

    @Override
    public void validate(String json) {
        try {
            mapper.readTree(json);
        } catch (JacksonException e) {
            throw new IllegalArgumentException(
                    "payload is not valid JSON: " + e.getOriginalMessage()
                            + ". Pass an object to serialise, or a well-formed JSON document as raw JSON.",
                    e);
        }
    }
}
