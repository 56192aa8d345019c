package dev.postbox;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.core.exc.StreamReadException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.exc.InvalidDefinitionException;
import com.fasterxml.jackson.databind.exc.InvalidFormatException;
import com.fasterxml.jackson.databind.exc.InvalidNullException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.databind.exc.ValueInstantiationException;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.postbox.internal.JsonFailures;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * {@link JsonCodec} on a Jackson 2 mapper ({@code com.fasterxml.jackson.core:jackson-databind} 2.15 or
 * newer, as Spring Boot 3 has it). {@code java.time} types need {@code jackson-datatype-jsr310} on the
 * class path (Spring Boot 3 includes it); {@link #ofDefaults()} registers it when present.
 */
public final class Jackson2JsonCodec implements JsonCodec {

    /** The class whose presence means Jackson 2 is on the class path. */
    public static final String MAPPER_CLASS = "com.fasterxml.jackson.databind.json.JsonMapper";

    private final ObjectMapper mapper;

    private Jackson2JsonCodec(ObjectMapper mapper) {
        this.mapper = Require.notNull(mapper, "mapper");
    }

    /** A codec on the given mapper, for example the application's {@code ObjectMapper} bean. */
    public static Jackson2JsonCodec of(ObjectMapper mapper) {
        return new Jackson2JsonCodec(mapper);
    }

    /**
     * A codec on a {@code JsonMapper} with the modules found on the class path and the defaults that
     * Jackson 3 (and Spring Boot) use, so that both adapters read and write the same JSON: unknown
     * properties are ignored, dates are ISO-8601 text, trailing content and nulls for primitives fail.
     */
    public static Jackson2JsonCodec ofDefaults() {
        return new Jackson2JsonCodec(JsonMapper.builder()
                .findAndAddModules()
                .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
                .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
                .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
                .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
                .disable(StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION)
                .build());
    }

    @Override
    public String toJson(Object value) {
        Require.notNull(value, "value");
        try {
            return mapper.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw failure(
                    "payload of type " + value.getClass().getName() + " cannot be written as JSON", e, null, null);
        }
    }

    @Override
    public <T> T fromJson(String json, Class<T> type) {
        Require.notNull(json, "json");
        Require.notNull(type, "type");
        try {
            return mapper.readValue(json, type);
        } catch (JsonProcessingException e) {
            throw failure("payload cannot be read as " + type.getName(), e, type, null);
        }
    }

    @Override
    public void validate(String json) {
        Require.notNull(json, "json");
        try {
            mapper.readTree(json);
        } catch (JsonProcessingException e) {
            throw failure(
                    "payload is not valid JSON",
                    e,
                    null,
                    "Pass an object to serialise, or a well-formed JSON document as raw JSON.");
        }
    }

    private static IllegalArgumentException failure(
            String what, JsonProcessingException e, @Nullable Class<?> type, @Nullable String hint) {
        JsonLocation location = e.getLocation();
        List<JsonFailures.Step> steps = e instanceof JsonMappingException m
                ? m.getPath().stream()
                        .map(r -> new JsonFailures.Step(r.getFieldName(), r.getIndex()))
                        .toList()
                : List.of();
        return JsonFailures.failure(
                what,
                problem(e, type),
                steps,
                location == null ? -1 : location.getLineNr(),
                location == null ? -1 : location.getColumnNr(),
                hint);
    }

    private static String problem(JsonProcessingException e, @Nullable Class<?> type) {
        if (e instanceof StreamConstraintsException) {
            return "the document exceeds a Jackson read limit (nesting depth, number or text length)";
        }
        if (e instanceof StreamReadException) {
            return "malformed JSON";
        }
        if (e instanceof UnrecognizedPropertyException) {
            return "an unknown property";
        }
        if (e instanceof InvalidNullException n) {
            return "null where " + JsonFailures.typeName(n.getTargetType()) + " needs a value";
        }
        if (e instanceof InvalidFormatException f) {
            return "a value that is not a valid " + JsonFailures.typeName(f.getTargetType());
        }
        if (e instanceof MismatchedInputException m) {
            return "a value that cannot become " + JsonFailures.typeName(m.getTargetType());
        }
        if (e instanceof ValueInstantiationException v) {
            Throwable cause = v.getCause();
            return JsonFailures.typeName(
                            v.getType() == null ? type : v.getType().getRawClass())
                    + " could not be created (its constructor or factory threw "
                    + (cause == null ? "an exception" : cause.getClass().getName()) + ")";
        }
        if (e instanceof InvalidDefinitionException d) {
            // About the Java type, not the document: Jackson's message names no value.
            return "the type cannot be mapped: " + d.getOriginalMessage();
        }
        Throwable cause = e.getCause();
        if (cause != null && !(cause instanceof JsonProcessingException)) {
            return "the object's own code threw " + cause.getClass().getName();
        }
        return e.getClass().getSimpleName();
    }
}
