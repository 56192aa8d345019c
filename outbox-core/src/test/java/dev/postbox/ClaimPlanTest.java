package dev.postbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.postbox.internal.ClaimStore;
import dev.postbox.internal.ClaimedJob;
import dev.postbox.internal.GenericPlans;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;

/**
 * The claim statement stays on the partial index however much history
 * and non-claimable work there is: 1M finished jobs in the archive, 1M live rows that are not due
 * (half scheduled far ahead, half running) and 1,000 due jobs.
 */
class ClaimPlanTest extends DatabaseTest {

    private static final int BATCH = 100;
    private final ObjectMapper json = JsonMapper.builder().build();

    /** A statement the engine prepared, with the parameters it bound (setter and arguments). */
    private record Captured(String sql, List<Object[]> binds) {
        void bindTo(PreparedStatement ps) throws Exception {
            for (Object[] bind : binds) {
                ((Method) bind[0]).invoke(ps, (Object[]) bind[1]);
            }
        }
    }

    private static Object call(Method method, Object target, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    /**
     * Runs the engine's own claim on a connection that records the claim statement and its
     * parameters, so that the test explains exactly what the engine executes.
     */
    private Captured captureClaim(Connection real) throws Exception {
        List<Captured> captured = new ArrayList<>();
        ClassLoader loader = getClass().getClassLoader();
        Connection spy =
                (Connection) Proxy.newProxyInstance(loader, new Class<?>[] {Connection.class}, (p, m, args) -> {
                    Object result = call(m, real, args);
                    if (m.getName().equals("prepareStatement")
                            && args.length == 1
                            && ((String) args[0]).contains("lease_token = nextval")) {
                        String sql = (String) args[0];
                        assertThat(sql)
                                .as("the engine runs its claim with a generic plan")
                                .startsWith(GenericPlans.PREFIX);
                        Captured claim = new Captured(GenericPlans.withoutPrefix(sql), new ArrayList<>());
                        captured.add(claim);
                        PreparedStatement ps = (PreparedStatement) result;
                        return Proxy.newProxyInstance(
                                loader, new Class<?>[] {PreparedStatement.class}, (p2, m2, args2) -> {
                                    if (m2.getName().startsWith("set") && args2 != null && args2.length == 2) {
                                        claim.binds().add(new Object[] {m2, args2});
                                    }
                                    return call(m2, ps, args2);
                                });
                    }
                    return result;
                });
        List<ClaimedJob> claimed = new ClaimStore(JsonCodec.jackson())
                .claim(spy, JobRequest.DEFAULT_QUEUE, BATCH, "worker-1", Duration.ofSeconds(30));
        assertThat(claimed).as("the engine's claim took a full batch").hasSize(BATCH);
        assertThat(captured).as("claim statements prepared").hasSize(1);
        return captured.get(0);
    }

    private JsonNode explain(Connection c, String options, Captured claim) throws Exception {
        try (PreparedStatement ps = c.prepareStatement("EXPLAIN (" + options + ") " + claim.sql())) {
            claim.bindTo(ps);
            return plan(ps);
        }
    }

    /** The plan the engine's claim runs with: the generic plan ({@link GenericPlans}). */
    private JsonNode explainGeneric(Connection c, Captured claim) throws Exception {
        StringBuilder numbered = new StringBuilder();
        int n = 0;
        for (char ch : claim.sql().toCharArray()) {
            if (ch == '?') {
                numbered.append('$').append(++n);
            } else {
                numbered.append(ch);
            }
        }
        assertThat(n).isEqualTo(claim.binds().size());
        try (Statement s = c.createStatement()) {
            s.execute("SET LOCAL plan_cache_mode = force_generic_plan");
            s.execute("PREPARE postbox_claim AS " + numbered);
        }
        // EXECUTE takes its arguments as literals (bind parameters are not passed through EXPLAIN EXECUTE).
        List<String> literals = new ArrayList<>();
        for (Object[] bind : claim.binds()) {
            Object value = ((Object[]) bind[1])[1];
            literals.add(
                    value instanceof Number
                            ? value.toString()
                            : "'" + value.toString().replace("'", "''") + "'");
        }
        try (Statement s = c.createStatement()) {
            JsonNode plan;
            try (ResultSet rs = s.executeQuery(
                    "EXPLAIN (FORMAT JSON) EXECUTE postbox_claim(" + String.join(", ", literals) + ")")) {
                rs.next();
                plan = json.readTree(rs.getString(1)).get(0).get("Plan");
            }
            s.execute("DEALLOCATE postbox_claim");
            return plan;
        }
    }

    private void loadData() {
        // 1M finished jobs of the last week.
        jdbc.execute("INSERT INTO outbox_job_archive (id, queue, kind, payload, priority, state, attempts,"
                + " max_attempts, created_at, started_at, finished_at)"
                + " SELECT g, 'default', 'mail', '{\"n\": 1}', 0, 'done', 1, 8,"
                + "   now() - g * interval '500 milliseconds', now() - g * interval '500 milliseconds',"
                + "   now() - g * interval '500 milliseconds'"
                + " FROM generate_series(1, 1000000) g");
        jdbc.execute("SELECT setval('outbox_job_id_seq', 1000000)");
        // 500k scheduled more than 100 s ahead (also beyond the highest priority's head start) ...
        jdbc.execute("INSERT INTO outbox_job (queue, kind, payload, priority, state, run_at)"
                + " SELECT 'default', 'mail', '{\"n\": 1}', (g % 201) - 100, 'pending',"
                + "   now() + interval '201 seconds' + g * interval '10 milliseconds'"
                + " FROM generate_series(1, 500000) g");
        // ... 500k running under leases, some of them with ordering keys ...
        jdbc.execute("INSERT INTO outbox_job (queue, kind, payload, state, attempts, run_at, lease_owner,"
                + " lease_token, lease_until, started_at, ordering_key)"
                + " SELECT 'default', 'mail', '{\"n\": 1}', 'running', 1, now() - interval '1 minute',"
                + "   'w-' || (g % 20), nextval('outbox_lease_token_seq'), now() + interval '30 seconds', now(),"
                + "   CASE WHEN g % 10 = 0 THEN 'customer-' || (g % 5000) END"
                + " FROM generate_series(1, 500000) g");
        // ... and 1,000 due jobs in all three priority lanes, some of them ordered too.
        jdbc.execute("INSERT INTO outbox_job (queue, kind, payload, priority, state, run_at, ordering_key)"
                + " SELECT 'default', 'mail', '{\"n\": 1}', (g % 3) - 1, 'pending', now() - g * interval '1 second',"
                + "   CASE WHEN g % 10 = 0 THEN 'order-' || g END"
                + " FROM generate_series(1, 1000) g");
        jdbc.execute("ANALYZE outbox_job");
        jdbc.execute("ANALYZE outbox_job_archive");
        jdbc.execute("ANALYZE outbox_queue");
    }

    private JsonNode plan(PreparedStatement ps) throws Exception {
        try (ResultSet rs = ps.executeQuery()) {
            rs.next();
            return json.readTree(rs.getString(1)).get(0).get("Plan");
        }
    }

    private static void collect(JsonNode node, List<JsonNode> into) {
        into.add(node);
        JsonNode children = node.get("Plans");
        if (children != null) {
            children.forEach(child -> collect(child, into));
        }
    }

    private static List<JsonNode> nodes(JsonNode plan) {
        List<JsonNode> nodes = new ArrayList<>();
        collect(plan, nodes);
        return nodes;
    }

    private static boolean on(JsonNode node, String field, String value) {
        JsonNode v = node.get(field);
        return v != null && value.equals(v.asString());
    }

    @Test
    void claimUsesThePartialIndexAndNeverScansTheLiveTable() throws Exception {
        loadData();
        assertThat(count("SELECT count(*) FROM outbox_job_archive")).isEqualTo(1_000_000);
        assertThat(count("SELECT count(*) FROM outbox_job")).isEqualTo(1_001_000);
        assertThat(count("SELECT count(*) FROM outbox_job WHERE state = 'pending' AND run_at <= now()"))
                .isEqualTo(1_000);

        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false); // everything below is rolled back
            try {
                Captured claim = captureClaim(c);
                for (JsonNode plan : List.of(explain(c, "FORMAT JSON", claim), explainGeneric(c, claim))) {
                    assertUsesClaimIndexOnly(plan);
                }

                // Executed: it claims a full batch and reads little beyond it.
                JsonNode executed = explain(c, "ANALYZE, BUFFERS, FORMAT JSON", claim);
                assertUsesClaimIndexOnly(executed);
                List<JsonNode> nodes = nodes(executed);
                assertThat(nodes.get(0).get("Actual Rows").asLong())
                        .as("claimed rows")
                        .isEqualTo(BATCH);
                long read = nodes.stream()
                        .filter(n -> on(n, "Index Name", "outbox_job_tenant_claim_idx"))
                        .mapToLong(n -> n.get("Actual Rows").asLong()
                                + (n.has("Rows Removed by Filter")
                                        ? n.get("Rows Removed by Filter").asLong()
                                        : 0))
                        .sum();
                assertThat(read)
                        .as("rows the claim index scans read: the scheduled jobs are never reached")
                        .isLessThan(10L * BATCH);
            } finally {
                c.rollback();
                c.setAutoCommit(true);
            }
        }
    }

    private static void assertUsesClaimIndexOnly(JsonNode plan) {
        List<JsonNode> nodes = nodes(plan);
        String text = plan.toString();
        assertThat(nodes)
                .as("a node reads the partial claim index: %s", text)
                .anyMatch(n ->
                        on(n, "Index Name", "outbox_job_tenant_claim_idx") && on(n, "Relation Name", "outbox_job"));
        assertThat(nodes)
                .as("per-key order (V12): a job's predecessors in commit order are one index range: %s", text)
                .anyMatch(n -> on(n, "Index Name", "outbox_job_key_order_idx"));
        assertThat(nodes)
                .as("per-key order (V12): a running job of the key is one probe of the running ordered jobs: %s", text)
                .anyMatch(n -> on(n, "Index Name", "outbox_job_key_running_idx"));
        assertThat(nodes)
                .as("no subquery hashes its whole result (every running job, say) instead of probing: %s", text)
                .noneMatch(n -> n.has("Subplan Name")
                        && n.get("Subplan Name").asString().startsWith("hashed"));
        assertThat(nodes)
                .as("no sequential scan of the live table: %s", text)
                .noneMatch(n -> on(n, "Node Type", "Seq Scan") && on(n, "Relation Name", "outbox_job"));
        assertThat(nodes)
                .as("no bitmap scan over the live table: %s", text)
                .noneMatch(n -> on(n, "Node Type", "Bitmap Heap Scan") && on(n, "Relation Name", "outbox_job"));
    }
}
