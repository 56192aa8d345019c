package dev.postbox;

import dev.postbox.internal.JsonFailures;
import java.util.List;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.core.TokenStreamLocation;
import tools.jackson.core.exc.StreamConstraintsException;
import tools.jackson.core.exc.StreamReadException;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.exc.InvalidDefinitionException;
import tools.jackson.databind.exc.InvalidFormatException;
import tools.jackson.databind.exc.InvalidNullException;
import tools.jackson.databind.exc.MismatchedInputException;
import tools.jackson.databind.exc.UnrecognizedPropertyException;
import tools.jackson.databind.exc.ValueInstantiationException;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@link JsonCodec} on a Jackson 3 mapper ({@code tools.jackson.core:jackson-databind}, as Spring Boot
 * 4 has it). Records, {@code java.time} types and {@code Map}s work with Jackson 3's defaults.
 */
public final class Jackson3JsonCodec implements JsonCodec {

    /** The class whose presence means Jackson 3 is on the class path. */
    public static final String MAPPER_CLASS = "tools.jackson.databind.json.JsonMapper";

    private final ObjectMapper mapper;

    private Jackson3JsonCodec(ObjectMapper mapper) {
        this.mapper = Require.notNull(mapper, "mapper");
    }

    /** A codec on the given mapper, for example the application's {@code JsonMapper} bean. */
    public static Jackson3JsonCodec of(ObjectMapper mapper) {
        return new Jackson3JsonCodec(mapper);
    }

    /** A codec on a {@code JsonMapper} with Jackson 3's defaults and the modules found on the class path. */
    public static Jackson3JsonCodec ofDefaults() {
        return new Jackson3JsonCodec(JsonMapper.builder().findAndAddModules().build());
    }

    @Override
    public String toJson(Object value) {
        Require.notNull(value, "value");
        try {
            return mapper.writeValueAsString(value);
        } catch (JacksonException e) {
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
        } catch (JacksonException e) {
            throw failure("payload cannot be read as " + type.getName(), e, type, null);
        }
    }

    @Override
    public void validate(String json) {
        Require.notNull(json, "json");
        try {
            mapper.readTree(json);
        } catch (JacksonException e) {
            throw failure(
                    "payload is not valid JSON",
                    e,
                    null,
                    "Pass an object to serialise, or a well-formed JSON document as raw JSON.");
        }
    }

    private static IllegalArgumentException failure(
            String what, JacksonException e, @Nullable Class<?> type, @Nullable String hint) {
        TokenStreamLocation location = e.getLocation();
        List<JsonFailures.Step> steps = e.getPath().stream()
                .map(r -> new JsonFailures.Step(r.getPropertyName(), r.getIndex()))
                .toList();
        return JsonFailures.failure(
                what,
                problem(e, type),
                steps,
                location == null ? -1 : location.getLineNr(),
                location == null ? -1 : location.getColumnNr(),
                hint);
    }

    private static String problem(JacksonException e, @Nullable Class<?> type) {
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
        if (cause != null && !(cause instanceof JacksonException)) {
            return "the object's own code threw " + cause.getClass().getName();
        }
        return e.getClass().getSimpleName();
    }
}
