package dev.postbox.http.webhook;

import dev.postbox.DeadLetterFilter;
import dev.postbox.JsonCodec;
import dev.postbox.PostboxAdmin;
import dev.postbox.RetryPolicy;
import dev.postbox.http.EndpointTimeouts;
import dev.postbox.http.SecretCipher;
import dev.postbox.http.SsrfGuard;
import dev.postbox.http.WebhookSecret;
import dev.postbox.http.internal.SqlErrors;
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
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The webhook endpoints in {@code outbox_endpoint}: register, update, look up, list, disable and
 * enable. Every method runs in its own short transaction. URLs are checked by the {@link SsrfGuard}
 * when an endpoint is registered or updated. Signing secrets and header values are sealed by the
 * module's {@link SecretCipher} before they are written (encryption at rest) and opened when read;
 * they are never logged. {@link #reencryptSecrets()} rewrites stored values with the active key.
 *
 * <p>Disabling an endpoint makes its deliveries wait: a delivery claimed while the endpoint is
 * disabled is snoozed (parked) without spending an attempt. {@link #enable} makes the parked jobs due
 * at once and replays the dead letters that died because the endpoint answered 410 Gone.
 */
public final class EndpointRegistry {

    /**
     * The cause ({@code outbox_dead_letter.cause}) stored with deliveries dead-lettered because their
     * endpoint was disabled (410 Gone); {@link #enable} replays the endpoint's dead letters with it.
     */
    public static final String DISABLED_CAUSE = "postbox.endpoint-disabled";

    private static final Logger log = LoggerFactory.getLogger(EndpointRegistry.class);
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
            new String[] {"retry_max_attempts", "?", "retry policy"});

    private static final String CONFIG_COLUMNS = join(c -> c[0], ", ");

    private static final String COLUMNS =
            "name, " + CONFIG_COLUMNS + ", state, disabled_reason, disabled_at, consecutive_failures, failing_since";

    private static final String INSERT =
            "INSERT INTO outbox_endpoint (name, " + CONFIG_COLUMNS + ") VALUES (?, " + join(c -> c[1], ", ") + ")";

    private static final String UPDATE = "UPDATE outbox_endpoint SET " + join(c -> c[0] + " = " + c[1], ", ")
            + ", updated_at = now() WHERE name = ?";

    /**
     * {@link #put}: one statement, so that instances starting together never race between a read
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

    private final DataSource dataSource;
    private final SsrfGuard guard;
    private final JsonCodec codec;
    private final Supplier<PostboxAdmin> admin;
    private final WebhookListener listener;
    private final RateLimitStore rateLimits;
    private final SecretCipher cipher;
    private final Duration cacheTtl;
    private final Map<String, Cached> cache = new ConcurrentHashMap<>();

    private record Cached(Optional<Endpoint> endpoint, long loadedAt) {}

    EndpointRegistry(
            DataSource dataSource,
            SsrfGuard guard,
            JsonCodec codec,
            Supplier<PostboxAdmin> admin,
            WebhookListener listener,
            RateLimitStore rateLimits,
            SecretCipher cipher,
            Duration cacheTtl) {
        this.dataSource = dataSource;
        this.guard = guard;
        this.codec = codec;
        this.admin = admin;
        this.listener = listener;
        this.rateLimits = rateLimits;
        this.cipher = cipher;
        this.cacheTtl = cacheTtl;
    }

    /**
     * Registers a new endpoint.
     *
     * @throws dev.postbox.http.ForbiddenDestinationException when the URL is refused by the SSRF
     *     guard (the message names the URL and the fix)
     * @throws IllegalStateException when an endpoint of that name exists (use {@link #update})
     */
    public Endpoint register(Endpoint endpoint) {
        Objects.requireNonNull(endpoint, "endpoint may not be null");
        guard.validateUrl(endpoint.url());
        Sealed sealed = sealFresh(endpoint);
        return tx(c -> {
            try (PreparedStatement ps = c.prepareStatement(INSERT + " ON CONFLICT (name) DO NOTHING")) {
                ps.setString(1, endpoint.name());
                bindConfig(c, ps, endpoint, sealed, 1);
                if (ps.executeUpdate() == 0) {
                    throw new IllegalStateException("A webhook endpoint named '" + endpoint.name()
                            + "' is already registered: use EndpointRegistry.update(...) to change it");
                }
            }
            syncBucket(c, endpoint);
            log.info("Registered webhook endpoint {}", endpoint);
            return endpoint;
        });
    }

    /**
     * Changes an endpoint's configuration (URL, secrets, headers, limits, subscriptions); its state
     * (enabled or disabled) is kept.
     *
     * @throws UnknownEndpointException when no endpoint of that name exists
     */
    public Endpoint update(Endpoint endpoint) {
        Objects.requireNonNull(endpoint, "endpoint may not be null");
        guard.validateUrl(endpoint.url());
        Endpoint updated = tx(c -> {
            Sealed sealed = seal(c, endpoint);
            try (PreparedStatement ps = c.prepareStatement(UPDATE)) {
                bindConfig(c, ps, endpoint, sealed, 0);
                ps.setString(CONFIG.size() + 1, endpoint.name());
                if (ps.executeUpdate() == 0) {
                    throw new UnknownEndpointException(endpoint.name());
                }
            }
            syncBucket(c, endpoint);
            return load(c, endpoint.name()).orElseThrow();
        });
        cache.remove(endpoint.name());
        log.info("Updated webhook endpoint {}", updated);
        return updated;
    }

    /**
     * Registers the endpoint, or updates its configuration when it exists (keeping its state and
     * health): the call for configuration applied at start-up. One atomic upsert, so instances
     * starting together never fail: when several put different definitions of one endpoint at once
     * (a rolling deploy changing its URL), each writes its whole definition in turn and the last one
     * wins. A change of an existing endpoint is logged with the names of what changed (never the
     * values: URLs and headers may carry credentials). Idempotent: putting the stored definition
     * again writes nothing.
     *
     * @throws dev.postbox.http.ForbiddenDestinationException when the URL is refused by the SSRF
     *     guard (the message names the URL and the fix)
     */
    public Endpoint put(Endpoint endpoint) {
        Objects.requireNonNull(endpoint, "endpoint may not be null");
        guard.validateUrl(endpoint.url());
        String name = endpoint.name();
        record Put(Endpoint stored, @Nullable Boolean inserted, List<String> changed) {}
        Put put = tx(c -> {
            Boolean inserted = null;
            List<String> changed = List.of();
            // Values already stored as given keep their ciphertext, so that an unchanged put writes nothing.
            Sealed sealed = seal(c, endpoint);
            try (PreparedStatement ps = c.prepareStatement(UPSERT)) {
                ps.setString(1, name);
                ps.setString(2, name);
                bindConfig(c, ps, endpoint, sealed, 2);
                try (ResultSet rs = ps.executeQuery()) {
                    if (rs.next()) {
                        inserted = rs.getBoolean(1);
                        boolean unseen = rs.getBoolean(2);
                        changed = unseen ? List.of() : List.copyOf(new LinkedHashSet<>(strings(rs.getArray(3))));
                    }
                }
            }
            syncBucket(c, endpoint);
            return new Put(load(c, name).orElseThrow(), inserted, changed);
        });
        cache.remove(name);
        if (put.inserted() == null) {
            log.debug("Webhook endpoint '{}' is already stored as given", name);
        } else if (put.inserted()) {
            log.info("Registered webhook endpoint {}", put.stored());
        } else {
            log.info(
                    "Webhook endpoint '{}' reconfigured ({}): put overwrites the stored configuration, so when"
                            + " instances start with different definitions the last one to start wins",
                    name,
                    put.changed().isEmpty()
                            ? "over a definition another instance had just stored"
                            : "changed: " + String.join(", ", put.changed()));
        }
        return put.stored();
    }

    /** The endpoint as stored now. */
    public Optional<Endpoint> get(String name) {
        Objects.requireNonNull(name, "name may not be null");
        return call(c -> load(c, name));
    }

    /** Every endpoint, by name. */
    public List<Endpoint> list() {
        return call(c -> {
            List<Endpoint> all = new ArrayList<>();
            try (PreparedStatement ps =
                            c.prepareStatement("SELECT " + COLUMNS + " FROM outbox_endpoint ORDER BY name");
                    ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    all.add(read(rs));
                }
            }
            return all;
        });
    }

    /** Deletes an endpoint (its waiting deliveries will fail permanently); false if unknown. */
    public boolean remove(String name) {
        boolean removed = tx(c -> {
            // The endpoint row first, then its bucket: the order put takes its locks in.
            boolean deleted;
            try (PreparedStatement ps = c.prepareStatement("DELETE FROM outbox_endpoint WHERE name = ?")) {
                ps.setString(1, name);
                deleted = ps.executeUpdate() > 0;
            }
            RateLimitStore.delete(c, name);
            return deleted;
        });
        cache.remove(name);
        return removed;
    }

    /**
     * Disables an endpoint: its deliveries wait (parked, no attempt spent) until {@link #enable}.
     *
     * @return false when it was already disabled
     * @throws UnknownEndpointException when no endpoint of that name exists
     */
    public boolean disable(String name, String reason) {
        return disable(name, WebhookListener.DisableCause.OPERATOR, reason);
    }

    boolean disable(String name, WebhookListener.DisableCause cause, String reason) {
        Objects.requireNonNull(reason, "reason may not be null");
        boolean changed = tx(c -> {
            try (PreparedStatement ps = c.prepareStatement("UPDATE outbox_endpoint SET state = 'disabled',"
                    + " disabled_reason = ?, disabled_at = now(), updated_at = now()"
                    + " WHERE name = ? AND state = 'enabled'")) {
                ps.setString(1, reason);
                ps.setString(2, name);
                if (ps.executeUpdate() > 0) {
                    return true;
                }
            }
            if (load(c, name).isEmpty()) {
                throw new UnknownEndpointException(name);
            }
            return false;
        });
        cache.remove(name);
        if (changed) {
            log.warn("Webhook endpoint {} disabled ({}): {}", name, cause, reason);
            listener.endpointDisabled(name, cause, reason);
        }
        return changed;
    }

    /**
     * Enables an endpoint and replays what waited: parked delivery jobs become due now, and dead
     * letters that died because the endpoint was disabled (410 Gone) go back to their queue with a
     * fresh attempt budget.
     *
     * @throws UnknownEndpointException when no endpoint of that name exists
     */
    public EnableResult enable(String name) {
        int[] counts = tx(c -> {
            int changed;
            try (PreparedStatement ps = c.prepareStatement("WITH old AS (SELECT name, state FROM outbox_endpoint"
                    + " WHERE name = ? FOR UPDATE) UPDATE outbox_endpoint e SET state = 'enabled',"
                    + " disabled_reason = NULL, disabled_at = NULL, consecutive_failures = 0, failing_since = NULL,"
                    + " updated_at = now() FROM old WHERE e.name = old.name AND e.name = ?"
                    + " RETURNING old.state = 'disabled'")) {
                ps.setString(1, name);
                ps.setString(2, name);
                try (ResultSet rs = ps.executeQuery()) {
                    if (!rs.next()) {
                        throw new UnknownEndpointException(name);
                    }
                    changed = rs.getBoolean(1) ? 1 : 0;
                }
            }
            int resumed;
            try (PreparedStatement ps = c.prepareStatement("UPDATE outbox_job SET run_at = now()"
                    + " WHERE endpoint = ? AND state IN ('pending', 'retry') AND run_at > now()")) {
                ps.setString(1, name);
                resumed = ps.executeUpdate();
            }
            return new int[] {changed, resumed};
        });
        cache.remove(name);
        int replayed = admin.get().replay(DeadLetterFilter.all().endpoint(name).cause(DISABLED_CAUSE));
        log.info(
                "Webhook endpoint {} enabled: {} waiting deliveries resumed, {} dead letters replayed",
                name,
                counts[1],
                replayed);
        listener.endpointEnabled(name, counts[1], replayed);
        return new EnableResult(counts[0] == 1, counts[1], replayed);
    }

    /**
     * The adaptive rate factor of each rate-limited endpoint now, by name: 1.0 at the configured
     * rate, lower while the endpoint recovers from 429 answers (see {@code docs/webhooks.md}). It is
     * cluster-wide: read from the bucket every process leases from.
     */
    public Map<String, Double> rateFactors() {
        try {
            Map<String, Double> factors = new LinkedHashMap<>(rateLimits.factors());
            factors.remove(RateLimitStore.GLOBAL);
            return factors;
        } catch (SQLException e) {
            throw new IllegalStateException("Reading the webhook rate factors failed: " + e.getMessage(), e);
        }
    }

    /** Cached lookup for the delivery path (refreshed after the cache TTL, or at once after a local change). */
    Optional<Endpoint> cached(String name) {
        long now = System.nanoTime();
        Cached hit = cache.get(name);
        if (hit != null && now - hit.loadedAt() < cacheTtl.toNanos()) {
            return hit.endpoint();
        }
        Optional<Endpoint> loaded = get(name);
        // Only endpoints that exist are cached: the cache is bounded by the endpoint table, whatever names
        // callers try (an unknown name is refused at enqueue and costs one primary-key lookup).
        if (loaded.isPresent()) {
            cache.put(name, new Cached(loaded, now));
        } else {
            cache.remove(name);
        }
        return loaded;
    }

    /** Entries in the delivery path's endpoint cache (for tests). */
    int cachedCount() {
        return cache.size();
    }

    /** A subscriber of an event, with its attempt budget when it has its own retry policy. */
    record Subscriber(String name, @Nullable Integer maxAttempts) {}

    /** Subscribers of an event type after a name cursor, in name order. */
    List<Subscriber> subscribers(Connection c, String eventType, @Nullable String after, int limit)
            throws SQLException {
        List<Subscriber> names = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT name, retry_max_attempts FROM outbox_endpoint"
                + " WHERE event_types && ARRAY[?, '*']::text[] AND (?::text IS NULL OR name > ?)"
                + " ORDER BY name LIMIT ?")) {
            ps.setString(1, eventType);
            ps.setString(2, after);
            ps.setString(3, after);
            ps.setInt(4, limit);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    names.add(new Subscriber(rs.getString(1), (Integer) rs.getObject(2)));
                }
            }
        }
        return names;
    }

    /** Records a retryable failure; returns the streak (failures, duration). */
    Streak recordFailure(String name) {
        return call(c -> {
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
        });
    }

    /** A failure streak. */
    record Streak(int failures, Duration duration, boolean enabled) {}

    /** Ends a failure streak; cheap no-op when there is none. */
    void recordSuccess(String name) {
        call(c -> {
            try (PreparedStatement ps = c.prepareStatement("UPDATE outbox_endpoint SET consecutive_failures = 0,"
                    + " failing_since = NULL, last_success_at = now() WHERE name = ? AND consecutive_failures > 0")) {
                ps.setString(1, name);
                return ps.executeUpdate();
            }
        });
    }

    private void syncBucket(Connection c, Endpoint endpoint) throws SQLException {
        if (endpoint.ratePerSecond().isPresent()) {
            RateLimitStore.upsert(c, endpoint.name(), endpoint.ratePerSecond().get(), endpoint.burst());
        } else {
            RateLimitStore.delete(c, endpoint.name());
        }
    }

    /** An endpoint's secrets and header values as they are stored: sealed by the {@link SecretCipher}. */
    private record Sealed(String[] secrets, Map<String, String> headers) {}

    /** Seals every value afresh. */
    private Sealed sealFresh(Endpoint e) {
        String[] secrets = e.secrets().stream()
                .map(WebhookSecret::serialized)
                .map(cipher::seal)
                .toArray(String[]::new);
        Map<String, String> headers = new LinkedHashMap<>();
        e.headers().forEach((name, value) -> headers.put(name, cipher.seal(value)));
        return new Sealed(secrets, headers);
    }

    /**
     * Seals the endpoint's values, reusing the stored sealed text of each value that is stored already
     * (same plain value, sealed with the active key): sealing is randomised, so fresh ciphertexts would
     * make every put of an unchanged definition a change.
     */
    private Sealed seal(Connection c, Endpoint e) throws SQLException {
        Map<String, String> reusable = new LinkedHashMap<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT secrets, headers FROM outbox_endpoint WHERE name = ?")) {
            ps.setString(1, e.name());
            try (ResultSet rs = ps.executeQuery()) {
                if (rs.next()) {
                    List<String> stored = new ArrayList<>(strings(rs.getArray(1)));
                    stored.addAll(storedHeaders(rs.getString(2)).values());
                    for (String value : stored) {
                        if (!cipher.needsResealing(value)) {
                            try {
                                reusable.putIfAbsent(cipher.open(value), value);
                            } catch (IllegalStateException unreadable) {
                                // Not reusable; it is overwritten by a freshly sealed value.
                            }
                        }
                    }
                }
            }
        }
        String[] secrets = e.secrets().stream()
                .map(WebhookSecret::serialized)
                .map(plain -> reusable.containsKey(plain) ? reusable.get(plain) : cipher.seal(plain))
                .toArray(String[]::new);
        Map<String, String> headers = new LinkedHashMap<>();
        e.headers()
                .forEach((name, plain) ->
                        headers.put(name, reusable.containsKey(plain) ? reusable.get(plain) : cipher.seal(plain)));
        return new Sealed(secrets, headers);
    }

    @SuppressWarnings("unchecked")
    private Map<String, String> storedHeaders(@Nullable String json) {
        Map<String, String> headers = new LinkedHashMap<>();
        if (json != null) {
            Map<String, Object> map = codec.fromJson(json, Map.class);
            map.forEach((k, v) -> headers.put(k, String.valueOf(v)));
        }
        return headers;
    }

    /**
     * Rewrites every stored signing secret and header value that is plain (stored before encryption
     * was configured) or sealed with another key than the active one, sealed with the active key. One
     * transaction; run it after making a new key active, then remove the old key from the
     * configuration. Idempotent: a second run rewrites nothing.
     *
     * @return how many endpoints were rewritten
     * @throws IllegalStateException when no key is configured ({@link SecretCipher#unconfigured()}) or
     *     any stored value cannot be decrypted with the configured keys, even one sealed with the
     *     active key (naming the key id and endpoint; nothing is rewritten then)
     */
    public int reencryptSecrets() {
        if (cipher == SecretCipher.unconfigured()) {
            // Fails with the message that names the configuration to add.
            cipher.seal("");
        }
        int rewritten = tx(c -> {
            int count = 0;
            try (PreparedStatement select = c.prepareStatement(
                            "SELECT name, secrets, headers FROM outbox_endpoint ORDER BY name FOR UPDATE");
                    PreparedStatement update = c.prepareStatement("UPDATE outbox_endpoint SET secrets = ?,"
                            + " headers = ?::jsonb, updated_at = now() WHERE name = ?");
                    ResultSet rs = select.executeQuery()) {
                while (rs.next()) {
                    String name = rs.getString(1);
                    List<String> secrets = strings(rs.getArray(2));
                    Map<String, String> headers = storedHeaders(rs.getString(3));
                    // Every value must open with the configured keys, current ones too: a wrong key is an error.
                    secrets.forEach(v -> open(name, v));
                    headers.values().forEach(v -> open(name, v));
                    boolean stale = secrets.stream().anyMatch(cipher::needsResealing)
                            || headers.values().stream().anyMatch(cipher::needsResealing);
                    if (!stale) {
                        continue;
                    }
                    String[] resealed =
                            secrets.stream().map(v -> reseal(name, v)).toArray(String[]::new);
                    Map<String, String> resealedHeaders = new LinkedHashMap<>();
                    headers.forEach((header, v) -> resealedHeaders.put(header, reseal(name, v)));
                    update.setArray(1, c.createArrayOf("text", resealed));
                    update.setString(2, codec.toJson(resealedHeaders));
                    update.setString(3, name);
                    update.executeUpdate();
                    count++;
                }
            }
            return count;
        });
        cache.clear();
        log.info("Re-encrypted the stored secrets of {} webhook endpoints with {}", rewritten, cipher.describe());
        return rewritten;
    }

    private String reseal(String endpoint, String stored) {
        return cipher.needsResealing(stored) ? cipher.seal(open(endpoint, stored)) : stored;
    }

    private String open(String endpoint, String stored) {
        try {
            return cipher.open(stored);
        } catch (IllegalStateException e) {
            throw new IllegalStateException("Webhook endpoint '" + endpoint + "': " + e.getMessage());
        }
    }

    /** Binds the {@link #CONFIG} columns to parameters {@code offset + 1} to {@code offset + CONFIG.size()}. */
    private void bindConfig(Connection c, PreparedStatement ps, Endpoint e, Sealed sealed, int offset)
            throws SQLException {
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
        if (i != offset + CONFIG.size()) {
            throw new IllegalStateException("bindConfig bound " + (i - offset) + " of " + CONFIG.size() + " columns");
        }
    }

    private Optional<Endpoint> load(Connection c, String name) throws SQLException {
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
            b.secret(open(name, secret));
        }
        storedHeaders(rs.getString("headers")).forEach((k, v) -> b.header(k, open(name, v)));
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
        return b.build();
    }

    private static List<String> strings(@Nullable Array array) throws SQLException {
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

    interface SqlCall<T> {
        T apply(Connection c) throws SQLException;
    }

    private <T> T call(SqlCall<T> call) {
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(true);
            return call.apply(c);
        } catch (SQLException e) {
            SQLException clean = SqlErrors.withoutData(e);
            throw new IllegalStateException("Webhook endpoint operation failed: " + clean.getMessage(), clean);
        }
    }

    private <T> T tx(SqlCall<T> call) {
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            try {
                T result = call.apply(c);
                c.commit();
                return result;
            } catch (SQLException | RuntimeException e) {
                c.rollback();
                throw e;
            } finally {
                c.setAutoCommit(true);
            }
        } catch (SQLException e) {
            SQLException clean = SqlErrors.withoutData(e);
            throw new IllegalStateException("Webhook endpoint operation failed: " + clean.getMessage(), clean);
        }
    }
}
