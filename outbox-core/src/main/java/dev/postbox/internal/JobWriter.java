package dev.postbox.internal;

import dev.postbox.EnqueueResult;
import dev.postbox.JobRequest;
import dev.postbox.JsonCodec;
import dev.postbox.PostboxConfig;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.ToIntFunction;

/**
 * The SQL of enqueue: one INSERT per job, deduplicated by idempotency key. Each statement also
 * returns the transaction's id ({@code txid_current()}, already assigned by the insert), by which
 * {@link WakeUps} learns when a plain JDBC caller has committed.
 */
public final class JobWriter {

    private static final String COLUMNS =
            "queue, kind, endpoint, ordering_key, idempotency_key, fire_key, payload, headers, priority,"
                    + " max_attempts, run_at, expires_at, tenant, time_limit_ms, tags, sort_at";
    /**
     * sort_at (run_at shifted earlier by priority seconds) is written here, so that the insert calls
     * no trigger function; run_at and priority are bound a second time for it.
     */
    private static final String VALUES = "?, ?, ?, ?, ?, ?, ?::jsonb, ?::jsonb, ?, ?,"
            + " coalesce(?::timestamptz, now() + ?::bigint * interval '1 millisecond'), ?, ?, ?, ?::text[],"
            + " coalesce(?::timestamptz, now() + ?::bigint * interval '1 millisecond') - ?::integer * interval '1 second'";

    private static final String INSERT =
            "INSERT INTO outbox_job (" + COLUMNS + ") VALUES (" + VALUES + ") RETURNING id, txid_current()";

    /**
     * Claims the key (or takes over an expired one) and inserts the job in one statement. When the
     * key is live, returns the existing job id instead. A key committed by a concurrent transaction
     * after this statement's snapshot yields no row; the caller then reads it with a new statement.
     * The default tenant's keys are in {@code outbox_idempotency_key} (unique by key, as before
     * tenants existed), a named tenant's in {@code outbox_tenant_idempotency_key} (unique by tenant
     * and key): the first parameters are the key columns of {@link KeyTable}.
     */
    private static String insertWithKey(KeyTable t) {
        return "WITH key AS ("
                + " INSERT INTO " + t.table + " (" + t.keyColumns + ", job_id, expires_at)"
                + " VALUES (" + t.keyParameters + ", nextval('outbox_job_id_seq'),"
                + "   now() + ?::bigint * interval '1 millisecond')"
                + " ON CONFLICT (" + t.keyColumns + ") DO UPDATE"
                + "   SET job_id = excluded.job_id, created_at = now(), expires_at = excluded.expires_at"
                + "   WHERE " + t.table + ".expires_at <= now()"
                + " RETURNING job_id),"
                + " job AS (INSERT INTO outbox_job (id, " + COLUMNS + ") SELECT key.job_id, " + VALUES
                + " FROM key RETURNING id)"
                + " SELECT id, true, txid_current() FROM job"
                + " UNION ALL SELECT job_id, false, txid_current() FROM " + t.table
                + "  WHERE " + t.match + " AND NOT EXISTS (SELECT 1 FROM key)";
    }

    private static String existingKey(KeyTable t) {
        return "SELECT job_id FROM " + t.table + " WHERE " + t.match + " AND expires_at > now()";
    }

    /** Where a tenant's idempotency keys live, and how a key is matched there. */
    private enum KeyTable {
        DEFAULT_TENANT("outbox_idempotency_key", "idempotency_key", "?", "idempotency_key = ?"),
        NAMED_TENANT(
                "outbox_tenant_idempotency_key",
                "tenant, idempotency_key",
                "?, ?",
                "tenant = ? AND idempotency_key = ?");

        final String table;
        final String keyColumns;
        final String keyParameters;
        final String match;
        final String insertWithKey;
        final String existingKey;

        KeyTable(String table, String keyColumns, String keyParameters, String match) {
            this.table = table;
            this.keyColumns = keyColumns;
            this.keyParameters = keyParameters;
            this.match = match;
            this.insertWithKey = JobWriter.insertWithKey(this);
            this.existingKey = JobWriter.existingKey(this);
        }

        static KeyTable of(JobRequest request) {
            return request.tenant().isPresent() && !NegativeControls.tenantBlindKeys() ? NAMED_TENANT : DEFAULT_TENANT;
        }

        /** Binds the key (tenant and key for a named tenant) from {@code i}; returns the next index. */
        int bindKey(PreparedStatement ps, int i, JobRequest request, String key) throws SQLException {
            if (this == NAMED_TENANT) {
                ps.setString(i++, request.tenant().orElseThrow());
            }
            ps.setString(i++, key);
            return i;
        }
    }

    private final JsonCodec codec;
    private final PostboxConfig config;
    private final ToIntFunction<String> maxAttemptsByKind;

    /**
     * @param maxAttemptsByKind the attempt budget of a kind whose request does not set one (the
     *     handler's retry policy where this process knows it, else the default policy)
     */
    public JobWriter(JsonCodec codec, PostboxConfig config, ToIntFunction<String> maxAttemptsByKind) {
        this.codec = codec;
        this.config = config;
        this.maxAttemptsByKind = maxAttemptsByKind;
    }

    /** Validates the request and turns its payload into JSON, with errors that name the job. */
    public String payloadJson(JobRequest request) {
        String json;
        if (request.rawJson().isPresent()) {
            json = request.rawJson().get();
            try {
                codec.validate(json);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(
                        "job kind '" + request.kind() + "': " + e.getMessage(), e.getCause());
            }
        } else {
            json = codec.toJson(request.payload().orElseThrow());
        }
        if (NulCharacters.inJson(json)) {
            throw new IllegalArgumentException("job kind '" + request.kind() + "': payload contains the character"
                    + " U+0000 (NUL), which PostgreSQL cannot store in jsonb. Remove it, or carry binary data"
                    + " encoded (Base64) in a string.");
        }
        int bytes = json.getBytes(StandardCharsets.UTF_8).length;
        if (bytes > config.maxPayloadBytes()) {
            throw new IllegalArgumentException("job kind '" + request.kind() + "': payload is " + bytes
                    + " bytes, more than maxPayloadBytes (" + config.maxPayloadBytes()
                    + "). Store large data elsewhere and enqueue a reference, or raise postbox.max-payload-bytes.");
        }
        return json;
    }

    /** What enqueue wrote, and in which transaction (0 when it wrote nothing). */
    public record Written(List<EnqueueResult> results, long transactionId) {

        /** Whether a new job was inserted (not only duplicates found). */
        public boolean createdAny() {
            return results.stream().anyMatch(EnqueueResult::created);
        }
    }

    public EnqueueResult insert(Connection connection, JobRequest request) throws SQLException {
        return insertOne(connection, request).results().get(0);
    }

    private Written insertOne(Connection connection, JobRequest request) throws SQLException {
        String payload = payloadJson(request);
        String key = request.idempotencyKey().orElse(null);
        if (key == null) {
            try (PreparedStatement ps = connection.prepareStatement(INSERT)) {
                bindJob(ps, 1, request, payload);
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    return new Written(List.of(new EnqueueResult(rs.getLong(1), true)), rs.getLong(2));
                }
            }
        }
        KeyTable keys = KeyTable.of(request);
        try (PreparedStatement ps = connection.prepareStatement(keys.insertWithKey)) {
            int i = keys.bindKey(ps, 1, request, key);
            ps.setLong(i++, config.idempotencyWindow().toMillis());
            int next = bindJob(ps, i, request, payload);
            keys.bindKey(ps, next, request, key);
            try (ResultSet rs = ps.executeQuery()) {
                if (rs.next()) {
                    return new Written(List.of(new EnqueueResult(rs.getLong(1), rs.getBoolean(2))), rs.getLong(3));
                }
            }
        }
        try (PreparedStatement ps = connection.prepareStatement(keys.existingKey)) {
            keys.bindKey(ps, 1, request, key);
            try (ResultSet rs = ps.executeQuery()) {
                if (rs.next()) {
                    return new Written(List.of(new EnqueueResult(rs.getLong(1), false)), 0);
                }
            }
        }
        throw new IllegalStateException("idempotency key '" + key + "'"
                + request.tenant().map(t -> " of tenant '" + t + "'").orElse("")
                + " was taken by a concurrent transaction that"
                + " has since expired or rolled back; retry the enqueue");
    }

    /**
     * Inserts the jobs in request order (ids follow it, which per-key ordering relies on): runs of
     * jobs without an idempotency key go in one JDBC batch, keyed jobs one statement each.
     */
    public Written insertAll(Connection connection, List<JobRequest> requests) throws SQLException {
        List<EnqueueResult> results = new ArrayList<>(requests.size());
        long transactionId = 0;
        List<JobRequest> run = new ArrayList<>();
        for (JobRequest request : requests) {
            if (request.idempotencyKey().isEmpty()) {
                run.add(request);
            } else {
                transactionId = add(results, transactionId, insertBatch(connection, run));
                run.clear();
                transactionId = add(results, transactionId, insertOne(connection, request));
            }
        }
        transactionId = add(results, transactionId, insertBatch(connection, run));
        return new Written(results, transactionId);
    }

    private static long add(List<EnqueueResult> results, long transactionId, Written written) {
        results.addAll(written.results());
        return written.transactionId() != 0 ? written.transactionId() : transactionId;
    }

    private Written insertBatch(Connection connection, List<JobRequest> run) throws SQLException {
        if (run.isEmpty()) {
            return new Written(List.of(), 0);
        }
        if (run.size() == 1) {
            return insertOne(connection, run.get(0));
        }
        List<EnqueueResult> results = new ArrayList<>(run.size());
        long transactionId = 0;
        // The statement has its RETURNING clause already; the driver returns its rows as the keys.
        try (PreparedStatement ps = connection.prepareStatement(INSERT, Statement.RETURN_GENERATED_KEYS)) {
            for (JobRequest request : run) {
                bindJob(ps, 1, request, payloadJson(request));
                ps.addBatch();
            }
            ps.executeBatch();
            try (ResultSet keys = ps.getGeneratedKeys()) {
                while (keys.next()) {
                    results.add(new EnqueueResult(keys.getLong(1), true));
                    transactionId = keys.getLong(2);
                }
            }
        }
        return new Written(results, transactionId);
    }

    private int bindJob(PreparedStatement ps, int i, JobRequest r, String payload) throws SQLException {
        ps.setString(i++, r.queue());
        ps.setString(i++, r.kind());
        ps.setString(i++, r.endpoint().orElse(null));
        ps.setString(i++, r.orderingKey().orElse(null));
        ps.setString(i++, r.idempotencyKey().orElse(null));
        ps.setString(i++, r.fireKey().orElse(null));
        ps.setString(i++, payload);
        ps.setString(i++, r.headers().isEmpty() ? null : codec.toJson(r.headers()));
        ps.setInt(i++, r.priority());
        ps.setInt(i++, r.maxAttempts().orElseGet(() -> maxAttemptsByKind.applyAsInt(r.kind())));
        Sql.setTimestamp(ps, i++, r.runAt().orElse(null));
        ps.setLong(i++, r.delay().toMillis());
        Sql.setTimestamp(ps, i++, r.expiresAt().orElse(null));
        ps.setString(i++, r.tenant().orElse(null));
        Duration limit = r.timeLimit().orElse(null);
        if (limit == null) {
            ps.setNull(i++, Types.INTEGER);
        } else {
            ps.setInt(i++, (int) limit.toMillis());
        }
        String[] tags = JobTags.elements(r.tags());
        if (tags == null) {
            ps.setNull(i++, Types.ARRAY);
        } else {
            ps.setArray(i++, ps.getConnection().createArrayOf("text", tags));
        }
        // sort_at, from run_at and priority as above
        Sql.setTimestamp(ps, i++, r.runAt().orElse(null));
        ps.setLong(i++, r.delay().toMillis());
        ps.setInt(i++, r.priority());
        return i;
    }
}
