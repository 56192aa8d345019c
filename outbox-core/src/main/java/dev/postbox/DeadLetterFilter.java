package dev.postbox;

import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Selects dead letters for listing, replay and purge. Immutable; start from {@link #all()} and
 * narrow it, e.g. {@code DeadLetterFilter.all().queue("webhooks").deadBetween(from, to)}.
 */
public final class DeadLetterFilter {

    private static final DeadLetterFilter ALL =
            new DeadLetterFilter(null, null, null, null, null, null, null, null, null, null);

    private final @Nullable String queue;
    private final @Nullable String kind;
    private final @Nullable String endpoint;
    private final @Nullable String errorContains;
    private final @Nullable Instant deadFrom;
    private final @Nullable Instant deadTo;
    private final @Nullable String errorFingerprint;
    private final @Nullable List<Long> ids;
    private final @Nullable String cause;
    private final @Nullable Integer errorStatus;

    private DeadLetterFilter(
            @Nullable String queue,
            @Nullable String kind,
            @Nullable String endpoint,
            @Nullable String errorContains,
            @Nullable Instant deadFrom,
            @Nullable Instant deadTo,
            @Nullable String errorFingerprint,
            @Nullable List<Long> ids,
            @Nullable String cause,
            @Nullable Integer errorStatus) {
        this.queue = queue;
        this.kind = kind;
        this.endpoint = endpoint;
        this.errorContains = errorContains;
        this.deadFrom = deadFrom;
        this.deadTo = deadTo;
        this.errorFingerprint = errorFingerprint;
        this.ids = ids;
        this.cause = cause;
        this.errorStatus = errorStatus;
    }

    /** Every dead letter. */
    public static DeadLetterFilter all() {
        return ALL;
    }

    public DeadLetterFilter queue(@Nullable String queue) {
        return new DeadLetterFilter(
                queue, kind, endpoint, errorContains, deadFrom, deadTo, errorFingerprint, ids, cause, errorStatus);
    }

    public DeadLetterFilter kind(@Nullable String kind) {
        return new DeadLetterFilter(
                queue, kind, endpoint, errorContains, deadFrom, deadTo, errorFingerprint, ids, cause, errorStatus);
    }

    public DeadLetterFilter endpoint(@Nullable String endpoint) {
        return new DeadLetterFilter(
                queue, kind, endpoint, errorContains, deadFrom, deadTo, errorFingerprint, ids, cause, errorStatus);
    }

    /** Dead letters whose last error contains the text (case-insensitive). */
    public DeadLetterFilter errorContains(@Nullable String text) {
        return new DeadLetterFilter(
                queue, kind, endpoint, text, deadFrom, deadTo, errorFingerprint, ids, cause, errorStatus);
    }

    /** Dead-lettered in {@code [from, to)}; either bound may be null. */
    public DeadLetterFilter deadBetween(@Nullable Instant from, @Nullable Instant to) {
        return new DeadLetterFilter(
                queue, kind, endpoint, errorContains, from, to, errorFingerprint, ids, cause, errorStatus);
    }

    /**
     * Dead letters whose error fingerprint ({@code outbox_dead_letter.error_fingerprint}: the last
     * error's first line with UUIDs, quoted literals and every number masked) equals this one: with
     * the kind, the endpoint and the {@link #errorStatus HTTP status}, one group of failures.
     */
    public DeadLetterFilter errorFingerprint(@Nullable String fingerprint) {
        return new DeadLetterFilter(
                queue, kind, endpoint, errorContains, deadFrom, deadTo, fingerprint, ids, cause, errorStatus);
    }

    /** Only these dead letters (by job id); null for no restriction, an empty collection matches none. */
    public DeadLetterFilter ids(@Nullable Collection<Long> ids) {
        List<Long> copy = null;
        if (ids != null) {
            ids.forEach(id -> Require.notNull(id, "each of ids"));
            copy = List.copyOf(ids);
        }
        return new DeadLetterFilter(
                queue, kind, endpoint, errorContains, deadFrom, deadTo, errorFingerprint, copy, cause, errorStatus);
    }

    /**
     * Dead letters stored with this cause ({@code outbox_dead_letter.cause}: the code of a handler's
     * {@link JobOutcome.Dead#withCause dead outcome}, e.g. {@code postbox.endpoint-disabled}).
     */
    public DeadLetterFilter cause(@Nullable String cause) {
        return new DeadLetterFilter(
                queue, kind, endpoint, errorContains, deadFrom, deadTo, errorFingerprint, ids, cause, errorStatus);
    }

    /**
     * Dead letters whose last error's first line names this HTTP status ({@code
     * outbox_dead_letter.error_status}, e.g. 503 for "HTTP 503 Service Unavailable"); null for no
     * restriction.
     */
    public DeadLetterFilter errorStatus(@Nullable Integer status) {
        return new DeadLetterFilter(
                queue, kind, endpoint, errorContains, deadFrom, deadTo, errorFingerprint, ids, cause, status);
    }

    public Optional<Integer> errorStatus() {
        return Optional.ofNullable(errorStatus);
    }

    public Optional<String> queue() {
        return Optional.ofNullable(queue);
    }

    public Optional<String> kind() {
        return Optional.ofNullable(kind);
    }

    public Optional<String> endpoint() {
        return Optional.ofNullable(endpoint);
    }

    public Optional<String> errorContains() {
        return Optional.ofNullable(errorContains);
    }

    public Optional<Instant> deadFrom() {
        return Optional.ofNullable(deadFrom);
    }

    public Optional<Instant> deadTo() {
        return Optional.ofNullable(deadTo);
    }

    public Optional<String> errorFingerprint() {
        return Optional.ofNullable(errorFingerprint);
    }

    public Optional<List<Long>> ids() {
        return Optional.ofNullable(ids);
    }

    public Optional<String> cause() {
        return Optional.ofNullable(cause);
    }
}
