package dev.postbox.http.webhook;

import dev.postbox.DeadLetterFilter;
import dev.postbox.JsonCodec;
import dev.postbox.OwnTransaction;
import dev.postbox.PostboxAdmin;
import dev.postbox.Require;
import dev.postbox.TenantId;
import dev.postbox.http.SecretCipher;
import dev.postbox.http.SecretSlot;
import dev.postbox.http.internal.SqlErrors;
import dev.postbox.http.signing.WebhookSecret;
import dev.postbox.http.ssrf.SsrfGuard;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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
 * at once and replays the dead letters that died because the endpoint answered 410 Gone (stored
 * with the cause {@link #DISABLED_CAUSE}).
 *
 * <p>This class holds the endpoint state the delivery path reads (a short-lived cache), sealing,
 * validation, events and replay; the SQL of {@code outbox_endpoint} is {@link EndpointStore}'s.
 */
public final class EndpointRegistry {

    /**
     * The cause ({@code outbox_dead_letter.cause}) stored with deliveries dead-lettered because their
     * endpoint was disabled (410 Gone); {@link #enable} replays the endpoint's dead letters with it.
     */
    public static final String DISABLED_CAUSE = "postbox.endpoint-disabled";

    private static final Logger log = LoggerFactory.getLogger(EndpointRegistry.class);
    private final DataSource dataSource;
    private final SsrfGuard guard;
    private final JsonCodec codec;
    private final Supplier<PostboxAdmin> admin;
    private final WebhookListener listener;
    private final RateLimitStore rateLimits;
    private final SecretCipher cipher;
    private final Duration cacheTtl;
    private final Map<String, Cached> cache = new ConcurrentHashMap<>();
    private final EndpointStore store;

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
        this.store = new EndpointStore(codec, cipher);
    }

    /**
     * Registers a new endpoint.
     *
     * @throws dev.postbox.http.ssrf.ForbiddenDestinationException when the URL is refused by the SSRF
     *     guard (the message names the URL and the fix)
     * @throws IllegalStateException when an endpoint of that name exists (use {@link #update})
     */
    public Endpoint register(Endpoint endpoint) {
        Require.notNull(endpoint, "endpoint");
        guard.validateUrl(endpoint.url());
        EndpointStore.Sealed sealed = sealFresh(endpoint);
        return tx(c -> {
            if (!store.insert(c, endpoint, sealed)) {
                throw new IllegalStateException("A webhook endpoint named '" + endpoint.name()
                        + "' is already registered: use EndpointRegistry.update(...) to change it");
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
        Require.notNull(endpoint, "endpoint");
        guard.validateUrl(endpoint.url());
        Endpoint updated = tx(c -> {
            EndpointStore.Sealed sealed = seal(c, endpoint);
            if (!store.update(c, endpoint, sealed)) {
                throw new UnknownEndpointException(endpoint.name());
            }
            syncBucket(c, endpoint);
            return store.load(c, endpoint.name()).orElseThrow();
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
     * @throws dev.postbox.http.ssrf.ForbiddenDestinationException when the URL is refused by the SSRF
     *     guard (the message names the URL and the fix)
     */
    public Endpoint put(Endpoint endpoint) {
        Require.notNull(endpoint, "endpoint");
        guard.validateUrl(endpoint.url());
        String name = endpoint.name();
        record Put(Endpoint stored, @Nullable Boolean inserted, List<String> changed) {}
        Put put = tx(c -> {
            // Values already stored as given keep their ciphertext, so that an unchanged put writes nothing.
            EndpointStore.Sealed sealed = seal(c, endpoint);
            EndpointStore.Upserted upserted = store.upsert(c, endpoint, sealed);
            syncBucket(c, endpoint);
            return new Put(
                    store.load(c, name).orElseThrow(),
                    upserted == null ? null : upserted.inserted(),
                    upserted == null ? List.of() : upserted.changed());
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
        Require.notNull(name, "name");
        return call(c -> store.load(c, name));
    }

    /** Every endpoint, by name. */
    public List<Endpoint> list() {
        return call(store::list);
    }

    /** Deletes an endpoint (its waiting deliveries will fail permanently); false if unknown. */
    public boolean remove(String name) {
        boolean removed = tx(c -> {
            // The endpoint row first, then its bucket: the order put takes its locks in.
            boolean deleted = store.delete(c, name);
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
        return disable(name, WebhookListener.DisableCause.OPERATOR, reason, null);
    }

    /**
     * Disables an endpoint of one tenant, as {@link #disable(String, String)} does; the tenant and the
     * name are matched in the statement that disables it.
     *
     * @param tenant the tenant that owns the endpoint, null for the default tenant
     * @return false when it was already disabled
     * @throws UnknownEndpointException when the tenant has no endpoint of that name (another
     *     tenant's included)
     */
    public boolean disableForTenant(String name, @Nullable String tenant, String reason) {
        return disable(name, WebhookListener.DisableCause.OPERATOR, reason, tenantKey(tenant));
    }

    boolean disable(String name, WebhookListener.DisableCause cause, String reason) {
        return disable(name, cause, reason, null);
    }

    private boolean disable(
            String name, WebhookListener.DisableCause cause, String reason, @Nullable String tenantKey) {
        Require.notNull(reason, "reason");
        boolean changed = tx(c -> {
            if (store.disable(c, name, reason, tenantKey)) {
                return true;
            }
            if (store.load(c, name)
                    .filter(e -> tenantKey == null
                            || tenantKey.equals(TenantId.key(e.tenant().orElse(null))))
                    .isEmpty()) {
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
     * fresh attempt budget. Those of every tenant: an endpoint of the default tenant may carry the
     * deliveries of several tenants. {@link #enableForTenant} touches one tenant's only.
     *
     * @throws UnknownEndpointException when no endpoint of that name exists
     */
    public EnableResult enable(String name) {
        return enable(name, null);
    }

    /**
     * Enables an endpoint of one tenant and replays what waited for that tenant only: the tenant's
     * parked deliveries to it become due now and the tenant's dead letters of it with the cause
     * {@link #DISABLED_CAUSE} are replayed; every statement matches the tenant with the name. Other
     * tenants' deliveries to it (a default-tenant endpoint shared by tenants) and their dead letters
     * are not touched: the parked ones go out at their next look ({@code parkDelay}) now that it is
     * enabled; their dead letters wait for their own tenant's replay.
     *
     * @param tenant the tenant that owns the endpoint, null for the default tenant
     * @throws UnknownEndpointException when the tenant has no endpoint of that name (another
     *     tenant's included)
     */
    public EnableResult enableForTenant(String name, @Nullable String tenant) {
        return enable(name, tenantKey(tenant));
    }

    private static String tenantKey(@Nullable String tenant) {
        return tenant == null ? "" : TenantId.validate(tenant, "tenant");
    }

    private EnableResult enable(String name, @Nullable String tenantKey) {
        int[] counts = tx(c -> {
            Boolean wasDisabled = store.enable(c, name, tenantKey);
            if (wasDisabled == null) {
                throw new UnknownEndpointException(name);
            }
            return new int[] {wasDisabled ? 1 : 0, store.resumeParked(c, name, tenantKey)};
        });
        cache.remove(name);
        DeadLetterFilter waited = DeadLetterFilter.all().endpoint(name).cause(DISABLED_CAUSE);
        PostboxAdmin postboxAdmin = admin.get();
        int replayed = tenantKey == null
                ? postboxAdmin.replay(waited)
                : (tenantKey.isEmpty() ? postboxAdmin.forDefaultTenant() : postboxAdmin.forTenant(tenantKey))
                        .replay(waited);
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
            // Only endpoints: not the global bucket, not the broker relays' ("kafka:orders") in the same table.
            factors.keySet().removeIf(key -> !Endpoint.NAME.matcher(key).matches());
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

    /** Records a retryable failure; returns the streak (failures, duration). */
    EndpointStore.Streak recordFailure(String name) {
        return call(c -> store.recordFailure(c, name));
    }

    /** Ends a failure streak; cheap no-op when there is none. */
    void recordSuccess(String name) {
        call(c -> {
            store.recordSuccess(c, name);
            return Boolean.TRUE;
        });
    }

    /**
     * Subscribers of an event type among one tenant's endpoints ({@code tenantKey}, {@code ""} for the
     * default tenant) after a name cursor, in name order (in the caller's transaction).
     */
    List<EndpointStore.Subscriber> subscribers(
            Connection c, String eventType, String tenantKey, @Nullable String after, int limit) throws SQLException {
        return store.subscribers(c, eventType, tenantKey, after, limit);
    }

    private void syncBucket(Connection c, Endpoint endpoint) throws SQLException {
        if (endpoint.ratePerSecond().isPresent()) {
            RateLimitStore.upsert(c, endpoint.name(), endpoint.ratePerSecond().get(), endpoint.burst());
        } else {
            RateLimitStore.delete(c, endpoint.name());
        }
    }

    /** Seals every value afresh, each bound to its slot. */
    private EndpointStore.Sealed sealFresh(Endpoint e) {
        return seal(e, Map.of());
    }

    /**
     * Seals the endpoint's values, reusing the stored sealed text of each value that is stored already
     * in the same slot (same plain value, sealed with the active key in the current format): sealing
     * is randomised, so fresh ciphertexts would make every put of an unchanged definition a change.
     */
    private EndpointStore.Sealed seal(Connection c, Endpoint e) throws SQLException {
        Map<SecretSlot, Map<String, String>> reusable = new HashMap<>();
        EndpointStore.StoredSecrets stored = store.storedSecrets(c, e.name());
        if (stored != null) {
            stored.secrets().forEach(v -> keepReusable(reusable, SecretSlot.signingSecret(e.name()), v));
            stored.headers().forEach((h, v) -> keepReusable(reusable, SecretSlot.header(e.name(), h), v));
        }
        return seal(e, reusable);
    }

    private void keepReusable(Map<SecretSlot, Map<String, String>> reusable, SecretSlot slot, String stored) {
        if (!cipher.needsResealing(stored)) {
            try {
                reusable.computeIfAbsent(slot, s -> new HashMap<>()).putIfAbsent(cipher.open(stored, slot), stored);
            } catch (IllegalStateException unreadable) {
                // Not reusable; it is overwritten by a freshly sealed value.
            }
        }
    }

    private EndpointStore.Sealed seal(Endpoint e, Map<SecretSlot, Map<String, String>> reusable) {
        SecretSlot secretSlot = SecretSlot.signingSecret(e.name());
        String[] secrets = e.secrets().stream()
                .map(WebhookSecret::serialized)
                .map(plain -> sealReusing(reusable, secretSlot, plain))
                .toArray(String[]::new);
        Map<String, String> headers = new LinkedHashMap<>();
        e.headers()
                .forEach((name, plain) ->
                        headers.put(name, sealReusing(reusable, SecretSlot.header(e.name(), name), plain)));
        return new EndpointStore.Sealed(secrets, headers);
    }

    private String sealReusing(Map<SecretSlot, Map<String, String>> reusable, SecretSlot slot, String plain) {
        String stored = reusable.getOrDefault(slot, Map.of()).get(plain);
        return stored != null ? stored : cipher.seal(plain, slot);
    }

    /**
     * Rewrites every stored signing secret and header value that is plain (stored before encryption
     * was configured), sealed with another key than the active one, or sealed in an older format
     * (AES-GCM {@code v1}, not bound to its endpoint and field), sealed with the active key and bound
     * to its {@link SecretSlot}. One transaction; run it after making a new key active (then remove
     * the old key from the configuration), after upgrading (to bind {@code v1} values), or with the
     * plain-text migration switch on (then turn it off). Idempotent: a second run rewrites nothing.
     *
     * @return how many endpoints were rewritten
     * @throws IllegalStateException when no key is configured ({@link SecretCipher#unconfigured()}) or
     *     any stored value cannot be opened where it is stored: a wrong or missing key (even the active
     *     one), a value moved from another endpoint or field, a plain value while the migration switch
     *     is off (naming the endpoint, field and key id; nothing is rewritten then)
     */
    public int reencryptSecrets() {
        if (cipher == SecretCipher.unconfigured()) {
            // Fails with the message that names the configuration to add.
            cipher.seal("");
        }
        int rewritten = tx(c -> {
            int count = 0;
            for (EndpointStore.StoredSecrets row : store.lockAllSecrets(c)) {
                String name = row.name();
                // Every value must open with the configured keys in its slot, current ones too: a wrong key
                // or a value moved from another row is an error, and nothing is rewritten.
                SecretSlot secretSlot = SecretSlot.signingSecret(name);
                row.secrets().forEach(v -> store.open(secretSlot, v));
                row.headers().forEach((header, v) -> store.open(SecretSlot.header(name, header), v));
                boolean stale = row.secrets().stream().anyMatch(cipher::needsResealing)
                        || row.headers().values().stream().anyMatch(cipher::needsResealing);
                if (!stale) {
                    continue;
                }
                String[] resealed =
                        row.secrets().stream().map(v -> reseal(secretSlot, v)).toArray(String[]::new);
                Map<String, String> resealedHeaders = new LinkedHashMap<>();
                row.headers()
                        .forEach(
                                (header, v) -> resealedHeaders.put(header, reseal(SecretSlot.header(name, header), v)));
                store.rewriteSecrets(c, name, resealed, resealedHeaders);
                count++;
            }
            return count;
        });
        cache.clear();
        log.info("Re-encrypted the stored secrets of {} webhook endpoints with {}", rewritten, cipher.describe());
        return rewritten;
    }

    private String reseal(SecretSlot slot, String stored) {
        return cipher.needsResealing(stored) ? cipher.seal(store.open(slot, stored), slot) : stored;
    }

    private <T> T call(OwnTransaction.Work<T> call) {
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(true);
            return call.run(c);
        } catch (SQLException e) {
            SQLException clean = SqlErrors.withoutData(e);
            throw new IllegalStateException("Webhook endpoint operation failed: " + clean.getMessage(), clean);
        }
    }

    private <T> T tx(OwnTransaction.Work<T> call) {
        try {
            return OwnTransaction.call(dataSource, call);
        } catch (SQLException e) {
            SQLException clean = SqlErrors.withoutData(e);
            throw new IllegalStateException("Webhook endpoint operation failed: " + clean.getMessage(), clean);
        }
    }
}
