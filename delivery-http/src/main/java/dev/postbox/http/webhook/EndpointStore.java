package dev.postbox.http.webhook;

import dev.postbox.JsonCodec;
import dev.postbox.RetryPolicy;
import dev.postbox.http.EndpointTimeouts;
import dev.postbox.http.SecretCipher;
import dev.postbox.http.SecretSlot;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.sql.Types;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The SQL of {@code outbox_endpoint}, every statement on the caller's connection (and so in its
 * transaction): configuration (insert, update, upsert, delete), state (disable, enable, the jobs a
 * disabled endpoint parked), health (failure streaks), subscribers of an event, and the stored
 * (sealed) secrets. Rows are read into {@link Endpoint}s with their secrets opened by the module's
 * {@link SecretCipher}. Caching, validation and events are {@link EndpointRegistry}'s.
 */
final class EndpointStore {

    /**
     * The configuration columns, in the order {@link #bindConfig} binds them (after {@code name}), each
     * with the name its change is logged under. State and health columns are not configuration.
     */
    private static final List<String[]> CONFIG = List.of(
            new String[] {"url", "?", "url"},
            new String[] {"secrets", "?", "secrets"},
            new String[] {"headers", "?::jsonb", "headers"},
            new String[] {"description", "?", "description"},
            new String[] {"event_types", "?", "event types"},
            new String[] {"connect_timeout_ms", "?", "timeouts"},
            new String[] {"read_timeout_ms", "?", "timeouts"},
            new String[] {"call_timeout_ms", "?", "timeouts"},
            new String[] {"rate_per_second", "?", "rate limit"},
            new String[] {"rate_burst", "?", "rate limit"},
            new String[] {"max_in_flight", "?", "max in flight"},
            new String[] {"retry_base_ms", "?", "retry policy"},
            new String[] {"retry_cap_ms", "?", "retry policy"},
            new String[] {"retry_max_attempts", "?", "retry policy"},
            new String[] {"tenant", "?", "tenant"});

    private static final String CONFIG_COLUMNS = join(c -> c[0], ", ");

    private static final String COLUMNS =
            "name, " + CONFIG_COLUMNS + ", state, disabled_reason, disabled_at, consecutive_failures, failing_since";

    private static final String INSERT =
            "INSERT INTO outbox_endpoint (name, " + CONFIG_COLUMNS + ") VALUES (?, " + join(c -> c[1], ", ") + ")";

    private static final String UPDATE = "UPDATE outbox_endpoint SET " + join(c -> c[0] + " = " + c[1], ", ")
            + ", updated_at = now() WHERE name = ?";

    /**
     * {@link EndpointRegistry#put}: one statement, so that instances starting together never race between a read
     * and a write. A new name is inserted; an existing row is updated only when its configuration
     * differs, keeping its state and health. ON CONFLICT serialises racing callers on the row: each
     * one's whole definition is written in turn (the last one wins), never a mix of two. The CTE
     * reads the row as it was before this statement (its snapshot), to name what changed in the
     * log (a row inserted by a racing caller after that snapshot is not in it); the result has no
     * row when nothing changed.
     */
    private static final String UPSERT = "WITH before AS (SELECT " + CONFIG_COLUMNS
            + " FROM outbox_endpoint WHERE name = ?),"
            + " upserted AS (" + INSERT + " ON CONFLICT (name) DO UPDATE SET "
            + join(c -> c[0] + " = excluded." + c[0], ", ") + ", updated_at = now()"
            + " WHERE (" + join(c -> "outbox_endpoint." + c[0], ", ") + ") IS DISTINCT FROM ("
            + join(c -> "excluded." + c[0], ", ") + ")"
            + " RETURNING (xmax = 0) AS inserted, " + CONFIG_COLUMNS + ")"
            + " SELECT u.inserted, b.url IS NULL, array_remove(ARRAY["
            + join(c -> "CASE WHEN b." + c[0] + " IS DISTINCT FROM u." + c[0] + " THEN '" + c[2] + "' END", ", ")
            + "], NULL)"
            + " FROM upserted u LEFT JOIN before b ON true";

    private static String join(java.util.function.Function<String[], String> part, String separator) {
        return String.join(separator, CONFIG.stream().map(part).toList());
    }

    private final JsonCodec codec;
    private final SecretCipher cipher;

    EndpointStore(JsonCodec codec, SecretCipher cipher) {
        this.codec = codec;
        this.cipher = cipher;
    }

    /** An endpoint's secrets and header values as they are stored: sealed by the {@link SecretCipher}. */
    record Sealed(String[] secrets, Map<String, String> headers) {}

    /** Inserts a new endpoint; {@code false} when one of that name exists. */
    boolean insert(Connection c, Endpoint endpoint, Sealed sealed) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(INSERT + " ON CONFLICT (name) DO NOTHING")) {
            ps.setString(1, endpoint.name());
            bindConfig(c, ps, endpoint, sealed, 1);
            return ps.executeUpdate() > 0;
        }
    }

    /** Writes an endpoint's configuration, keeping its state; {@code false} when it does not exist. */
    boolean update(Connection c, Endpoint endpoint, Sealed sealed) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(UPDATE)) {
            bindConfig(c, ps, endpoint, sealed, 0);
            ps.setString(CONFIG.size() + 1, endpoint.name());
            return ps.executeUpdate() > 0;
        }
    }

    /** What an upsert wrote: whether it inserted, and the names of what changed ({@code UPSERT}). */
    record Upserted(boolean inserted, List<String> changed) {}

    /** Inserts or updates the endpoint ({@link #UPSERT}); null when the stored definition was the same. */
    @Nullable
    Upserted upsert(Connection c, Endpoint endpoint, Sealed sealed) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(UPSERT)) {
            ps.setString(1, endpoint.name());
            ps.setString(2, endpoint.name());
            bindConfig(c, ps, endpoint, sealed, 2);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return null;
                }
                boolean inserted = rs.getBoolean(1);
                boolean unseen = rs.getBoolean(2);
                List<String> changed = unseen ? List.of() : List.copyOf(new LinkedHashSet<>(strings(rs.getArray(3))));
                return new Upserted(inserted, changed);
            }
        }
    }

    /** Every endpoint, by name. */
    List<Endpoint> list(Connection c) throws SQLException {
        List<Endpoint> all = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT " + COLUMNS + " FROM outbox_endpoint ORDER BY name");
                ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                all.add(read(rs));
            }
        }
        return all;
    }

    /** Deletes the endpoint's row; {@code false} when there was none. */
    boolean delete(Connection c, String name) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("DELETE FROM outbox_endpoint WHERE name = ?")) {
            ps.setString(1, name);
            return ps.executeUpdate() > 0;
        }
    }

    /**
     * Limits a statement to one tenant's rows ({@code ''}: the default tenant) when its two parameters
     * are a tenant key, to none when they are null.
     */
    private static final String OF_TENANT = " AND (?::text IS NULL OR coalesce(tenant, '') = ?)";

    /**
     * Disables an enabled endpoint (of the tenant, when a tenant key is given); {@code false} when it
     * was disabled already or does not exist (as the tenant's).
     *
     * @param tenantKey the tenant's key ({@code ''} for the default tenant), null for any tenant
     */
    boolean disable(Connection c, String name, String reason, @Nullable String tenantKey) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("UPDATE outbox_endpoint SET state = 'disabled',"
                + " disabled_reason = ?, disabled_at = now(), updated_at = now()"
                + " WHERE name = ? AND state = 'enabled'" + OF_TENANT)) {
            ps.setString(1, reason);
            ps.setString(2, name);
            ps.setString(3, tenantKey);
            ps.setString(4, tenantKey);
            return ps.executeUpdate() > 0;
        }
    }

    /**
     * Enables the endpoint (of the tenant, when a tenant key is given) and clears its failure streak;
     * whether it was disabled, or null when it does not exist (as the tenant's).
     */
    @Nullable
    Boolean enable(Connection c, String name, @Nullable String tenantKey) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("WITH old AS (SELECT name, state FROM outbox_endpoint"
                + " WHERE name = ?" + OF_TENANT + " FOR UPDATE) UPDATE outbox_endpoint e SET state = 'enabled',"
                + " disabled_reason = NULL, disabled_at = NULL, consecutive_failures = 0, failing_since = NULL,"
                + " updated_at = now() FROM old WHERE e.name = old.name AND e.name = ?"
                + " RETURNING old.state = 'disabled'")) {
            ps.setString(1, name);
            ps.setString(2, tenantKey);
            ps.setString(3, tenantKey);
            ps.setString(4, name);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getBoolean(1) : null;
            }
        }
    }

    /**
     * Makes the endpoint's parked (waiting, not yet due) deliveries due now, of the tenant when a
     * tenant key is given; returns how many.
     */
    int resumeParked(Connection c, String name, @Nullable String tenantKey) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("UPDATE outbox_job SET run_at = now()"
                + " WHERE endpoint = ? AND state IN ('pending', 'retry') AND run_at > now()" + OF_TENANT)) {
            ps.setString(1, name);
            ps.setString(2, tenantKey);
            ps.setString(3, tenantKey);
            return ps.executeUpdate();
        }
    }

    /** A failure streak. */
    record Streak(int failures, Duration duration, boolean enabled) {}

    /** Records a retryable failure; returns the streak (failures, duration). */
    Streak recordFailure(Connection c, String name) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("UPDATE outbox_endpoint SET"
                + " consecutive_failures = consecutive_failures + 1, failing_since = coalesce(failing_since, now()),"
                + " last_failure_at = now() WHERE name = ?"
                + " RETURNING consecutive_failures, extract(epoch FROM now() - failing_since) * 1000, state")) {
            ps.setString(1, name);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return new Streak(0, Duration.ZERO, false);
                }
                return new Streak(
                        rs.getInt(1), Duration.ofMillis((long) rs.getDouble(2)), "enabled".equals(rs.getString(3)));
            }
        }
    }

    /** Ends a failure streak; cheap no-op when there is none. */
    void recordSuccess(Connection c, String name) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("UPDATE outbox_endpoint SET consecutive_failures = 0,"
                + " failing_since = NULL, last_success_at = now() WHERE name = ? AND consecutive_failures > 0")) {
            ps.setString(1, name);
            ps.executeUpdate();
        }
    }

    /** A subscriber of an event, with its attempt budget when it has its own retry policy. */
    record Subscriber(String name, @Nullable Integer maxAttempts) {}

    /**
     * Subscribers of an event type among the endpoints of one tenant ({@code tenantKey}: the id, or
     * {@code ""} for the default tenant), after a name cursor, in name order.
     */
    List<Subscriber> subscribers(Connection c, String eventType, String tenantKey, @Nullable String after, int limit)
            throws SQLException {
        List<Subscriber> names = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT name, retry_max_attempts FROM outbox_endpoint"
                + " WHERE event_types && ARRAY[?, '*']::text[] AND coalesce(tenant, '') = ?"
                + " AND (?::text IS NULL OR name > ?) ORDER BY name LIMIT ?")) {
            ps.setString(1, eventType);
            ps.setString(2, tenantKey);
            ps.setString(3, after);
            ps.setString(4, after);
            ps.setInt(5, limit);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    names.add(new Subscriber(rs.getString(1), (Integer) rs.getObject(2)));
                }
            }
        }
        return names;
    }

    /** An endpoint's secrets and header values as stored (sealed). */
    record StoredSecrets(String name, List<String> secrets, Map<String, String> headers) {}

    /** The stored secrets of one endpoint, or null when it does not exist. */
    @Nullable
    StoredSecrets storedSecrets(Connection c, String name) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT secrets, headers FROM outbox_endpoint WHERE name = ?")) {
            ps.setString(1, name);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next()
                        ? new StoredSecrets(name, strings(rs.getArray(1)), storedHeaders(rs.getString(2)))
                        : null;
            }
        }
    }

    /** The stored secrets of every endpoint, by name, their rows locked for a rewrite. */
    List<StoredSecrets> lockAllSecrets(Connection c) throws SQLException {
        List<StoredSecrets> all = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement(
                        "SELECT name, secrets, headers FROM outbox_endpoint ORDER BY name FOR UPDATE");
                ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                all.add(new StoredSecrets(rs.getString(1), strings(rs.getArray(2)), storedHeaders(rs.getString(3))));
            }
        }
        return all;
    }

    /** Writes an endpoint's (resealed) secrets and header values. */
    void rewriteSecrets(Connection c, String name, String[] secrets, Map<String, String> headers) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(
                "UPDATE outbox_endpoint SET secrets = ?, headers = ?::jsonb, updated_at = now() WHERE name = ?")) {
            ps.setArray(1, c.createArrayOf("text", secrets));
            ps.setString(2, codec.toJson(headers));
            ps.setString(3, name);
            ps.executeUpdate();
        }
    }

    @SuppressWarnings("unchecked")
    Map<String, String> storedHeaders(@Nullable String json) {
        Map<String, String> headers = new LinkedHashMap<>();
        if (json != null) {
            Map<String, Object> map = codec.fromJson(json, Map.class);
            map.forEach((k, v) -> headers.put(k, String.valueOf(v)));
        }
        return headers;
    }

    /** Binds the {@link #CONFIG} columns to parameters {@code offset + 1} to {@code offset + CONFIG.size()}. */
    void bindConfig(Connection c, PreparedStatement ps, Endpoint e, Sealed sealed, int offset) throws SQLException {
        int i = offset;
        ps.setString(++i, e.url());
        ps.setArray(++i, c.createArrayOf("text", sealed.secrets()));
        ps.setString(++i, codec.toJson(new LinkedHashMap<>(sealed.headers())));
        ps.setString(++i, e.description().orElse(null));
        ps.setArray(
                ++i, c.createArrayOf("text", e.eventTypes().stream().sorted().toArray()));
        EndpointTimeouts t = e.timeouts().orElse(null);
        setInt(ps, ++i, t == null ? null : (int) t.connectTimeout().toMillis());
        setInt(ps, ++i, t == null ? null : (int) t.readTimeout().toMillis());
        setInt(ps, ++i, t == null ? null : (int) t.callTimeout().toMillis());
        if (e.ratePerSecond().isPresent()) {
            ps.setDouble(++i, e.ratePerSecond().get());
            ps.setInt(++i, e.burst());
        } else {
            ps.setNull(++i, Types.DOUBLE);
            ps.setNull(++i, Types.INTEGER);
        }
        setInt(ps, ++i, e.maxInFlight().orElse(null));
        RetryPolicy p = e.retryPolicy().orElse(null);
        setLong(ps, ++i, p == null ? null : p.base().toMillis());
        setLong(ps, ++i, p == null ? null : p.cap().toMillis());
        setInt(ps, ++i, p == null ? null : p.maxAttempts());
        ps.setString(++i, e.tenant().orElse(null));
        if (i != offset + CONFIG.size()) {
            throw new IllegalStateException("bindConfig bound " + (i - offset) + " of " + CONFIG.size() + " columns");
        }
    }

    Optional<Endpoint> load(Connection c, String name) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT " + COLUMNS + " FROM outbox_endpoint WHERE name = ?")) {
            ps.setString(1, name);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? Optional.of(read(rs)) : Optional.empty();
            }
        }
    }

    private Endpoint read(ResultSet rs) throws SQLException {
        String name = rs.getString("name");
        Endpoint.Builder b = Endpoint.builder(name, rs.getString("url"));
        for (String secret : strings(rs.getArray("secrets"))) {
            b.secret(open(SecretSlot.signingSecret(name), secret));
        }
        storedHeaders(rs.getString("headers")).forEach((k, v) -> b.header(k, open(SecretSlot.header(name, k), v)));
        b.description(rs.getString("description"));
        b.eventTypes(new LinkedHashSet<>(strings(rs.getArray("event_types"))));
        Integer connect = (Integer) rs.getObject("connect_timeout_ms");
        Integer read = (Integer) rs.getObject("read_timeout_ms");
        Integer callTimeout = (Integer) rs.getObject("call_timeout_ms");
        if (connect != null || read != null || callTimeout != null) {
            EndpointTimeouts d = EndpointTimeouts.DEFAULTS;
            b.timeouts(new EndpointTimeouts(
                    connect != null ? Duration.ofMillis(connect) : d.connectTimeout(),
                    read != null ? Duration.ofMillis(read) : d.readTimeout(),
                    callTimeout != null ? Duration.ofMillis(callTimeout) : d.callTimeout()));
        }
        Object rate = rs.getObject("rate_per_second");
        if (rate != null) {
            b.rateLimit(((Number) rate).doubleValue(), rs.getInt("rate_burst"));
        }
        b.maxInFlight((Integer) rs.getObject("max_in_flight"));
        Object maxAttempts = rs.getObject("retry_max_attempts");
        Object base = rs.getObject("retry_base_ms");
        Object cap = rs.getObject("retry_cap_ms");
        if (maxAttempts != null || base != null || cap != null) {
            RetryPolicy.Builder p = RetryPolicy.custom();
            if (base != null) {
                p.base(Duration.ofMillis(((Number) base).longValue()));
            }
            if (cap != null) {
                p.cap(Duration.ofMillis(((Number) cap).longValue()));
            }
            if (maxAttempts != null) {
                p.maxAttempts(((Number) maxAttempts).intValue());
            }
            b.retryPolicy(p.build());
        }
        b.state(
                "disabled".equals(rs.getString("state")) ? EndpointState.DISABLED : EndpointState.ENABLED,
                rs.getString("disabled_reason"),
                instant(rs.getTimestamp("disabled_at")));
        b.health(rs.getInt("consecutive_failures"), instant(rs.getTimestamp("failing_since")));
        b.tenant(rs.getString("tenant"));
        return b.build();
    }

    static List<String> strings(@Nullable Array array) throws SQLException {
        if (array == null) {
            return List.of();
        }
        Object[] values = (Object[]) array.getArray();
        List<String> out = new ArrayList<>(values.length);
        for (Object v : values) {
            out.add((String) v);
        }
        return out;
    }

    private static @Nullable Instant instant(@Nullable Timestamp ts) {
        return ts == null ? null : ts.toInstant();
    }

    private static void setInt(PreparedStatement ps, int i, @Nullable Integer v) throws SQLException {
        if (v == null) {
            ps.setNull(i, Types.INTEGER);
        } else {
            ps.setInt(i, v);
        }
    }

    private static void setLong(PreparedStatement ps, int i, @Nullable Long v) throws SQLException {
        if (v == null) {
            ps.setNull(i, Types.BIGINT);
        } else {
            ps.setLong(i, v);
        }
    }

    /**
     * Opens a value stored in {@code slot}; a failure names the endpoint and field (the cipher's
     * message names neither the value nor the key).
     */
    String open(SecretSlot slot, String stored) {
        try {
            return cipher.open(stored, slot);
        } catch (IllegalStateException e) {
            throw new IllegalStateException(
                    "Webhook endpoint '" + slot.endpoint() + "', field '" + slot.field() + "': " + e.getMessage());
        }
    }
}
