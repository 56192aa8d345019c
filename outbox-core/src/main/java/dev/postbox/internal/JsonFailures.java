package dev.postbox.internal;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The messages of the Jackson adapters' failures. They say what failed, where (path, line, column)
 * and what kind of problem it was, and never quote the document: Jackson's own messages may echo
 * payload values ("Cannot deserialize value of type int from String "…""), so they are not used, nor
 * chained as a cause.
 */
public final class JsonFailures {

    private JsonFailures() {}

    /** One step of a path into a document: a property name, or an array index when the name is null. */
    public record Step(@Nullable String property, int index) {}

    /** {@code $.items[2].quantity} from the steps; {@code $} for none. */
    public static String path(List<Step> steps) {
        StringBuilder path = new StringBuilder("$");
        for (Step step : steps) {
            if (step.property() != null) {
                path.append('.').append(step.property());
            } else if (step.index() >= 0) {
                path.append('[').append(step.index()).append(']');
            }
        }
        return path.toString();
    }

    /**
     * The whole message: {@code "<what> failed: <problem> at $.a.b (line 1, column 12)"}.
     *
     * @param line 1-based, or not positive when unknown
     */
    public static IllegalArgumentException failure(
            String what, String problem, List<Step> steps, int line, int column, @Nullable String hint) {
        StringBuilder message = new StringBuilder(what).append(": ").append(problem);
        if (!steps.isEmpty()) {
            message.append(" at ").append(path(steps));
        }
        if (line > 0) {
            message.append(" (line ")
                    .append(line)
                    .append(", column ")
                    .append(column)
                    .append(')');
        }
        if (hint != null) {
            message.append(". ").append(hint);
        }
        return new IllegalArgumentException(message.toString());
    }

    /** A short name of a Java type for messages: {@code int}, {@code java.time.Instant}, {@code com.example.Order}. */
    public static String typeName(@Nullable Class<?> type) {
        return type == null ? "the expected type" : type.getTypeName();
    }
}
