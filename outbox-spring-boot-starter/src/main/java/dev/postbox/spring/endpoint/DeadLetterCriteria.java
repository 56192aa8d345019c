package dev.postbox.spring.endpoint;

import dev.postbox.DeadLetterFilter;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;

/**
 * The dead-letter filter as a request of the {@code postboxdeadletters} endpoint gives it: every
 * criterion optional, a blank text meaning absent.
 */
record DeadLetterCriteria(
        @Nullable String queue,
        @Nullable String kind,
        @Nullable String endpoint,
        @Nullable String error,
        @Nullable Instant deadFrom,
        @Nullable Instant deadTo) {

    /** The filter of the given criteria; none matches every dead letter. */
    DeadLetterFilter filter() {
        return DeadLetterFilter.all()
                .queue(RequestChecks.optional(queue))
                .kind(RequestChecks.optional(kind))
                .endpoint(RequestChecks.optional(endpoint))
                .errorContains(RequestChecks.optional(error))
                .deadBetween(deadFrom, deadTo);
    }

    /**
     * The filter of a write on every match: 400 unless at least one criterion is given or {@code all}
     * is true, so that no request selects every dead letter by leaving the filter out.
     */
    DeadLetterFilter filterOfBulkWrite(@Nullable Boolean all) {
        boolean any = RequestChecks.optional(queue) != null
                || RequestChecks.optional(kind) != null
                || RequestChecks.optional(endpoint) != null
                || RequestChecks.optional(error) != null
                || deadFrom != null
                || deadTo != null;
        if (!any && !Boolean.TRUE.equals(all)) {
            throw new InvalidEndpointRequestException(
                    "Give at least one of queue, kind, endpoint, error, deadFrom, deadTo, or all=true"
                            + " to select every dead letter",
                    "no filter");
        }
        return filter();
    }

    /** The criteria and {@code all} as the audit line names them, in this order. */
    Map<String, @Nullable Object> auditParameters(@Nullable Boolean all) {
        Map<String, @Nullable Object> parameters = new LinkedHashMap<>();
        parameters.put("queue", queue);
        parameters.put("kind", kind);
        parameters.put("endpoint", endpoint);
        parameters.put("error", error);
        parameters.put("deadFrom", deadFrom);
        parameters.put("deadTo", deadTo);
        parameters.put("all", all);
        return parameters;
    }

    /** The filter as the operations log names it: its criteria, or {@code all}. */
    static String describe(DeadLetterFilter f) {
        StringBuilder b = new StringBuilder();
        f.queue().ifPresent(v -> b.append("queue=").append(v).append(' '));
        f.kind().ifPresent(v -> b.append("kind=").append(v).append(' '));
        f.endpoint().ifPresent(v -> b.append("endpoint=").append(v).append(' '));
        f.errorContains().ifPresent(v -> b.append("error~").append(v).append(' '));
        f.deadFrom().ifPresent(v -> b.append("deadFrom=").append(v).append(' '));
        f.deadTo().ifPresent(v -> b.append("deadTo=").append(v).append(' '));
        return b.isEmpty() ? "all" : b.toString().trim();
    }
}
