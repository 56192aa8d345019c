package dev.postbox.benchmarks;

import com.zaxxer.hikari.HikariDataSource;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import javax.sql.DataSource;
import org.HdrHistogram.Histogram;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Scenario: the operator console on real volumes. Fills one database with archived jobs (spread
 * over seven days of finish time, in time order, a quarter of them webhook deliveries), dead letters
 * (in 40 error groups over five kinds), live jobs and failed delivery attempts, starts the console
 * in a Spring Boot application on that database, and times every page: each is requested five times
 * to warm up, then {@code bench.consoleRequests} times in sequence over loopback HTTP. The time is the
 * server's render plus a loopback round trip. The target: every page at most 200 ms.
 */
final class Console {

    private static final Logger log = LoggerFactory.getLogger(Console.class);
    static final double TARGET_MS = 200;
    private static final int WARM_UP = 5;

    private Console() {}

    /** The pages, by name, relative to the application; the job and key are in the middle of the archive. */
    static Map<String, String> pages(Volumes v) {
        long middle = Math.max(1, v.archived() / 2);
        Map<String, String> p = new LinkedHashMap<>();
        p.put("overview", "/postbox");
        p.put("jobs (last hour)", "/postbox/jobs");
        p.put("jobs by kind (24h)", "/postbox/jobs?kind=kind-3&window=24h");
        p.put("jobs by key", "/postbox/jobs?key=key-" + middle);
        p.put("jobs dead in queue (7d)", "/postbox/jobs?queue=q1&state=dead&window=7d");
        p.put("job", "/postbox/jobs/" + middle);
        p.put("dead letters", "/postbox/dead-letters");
        p.put("dead letters of a kind", "/postbox/dead-letters?kind=kind-2");
        p.put("webhooks", "/postbox/webhooks");
        p.put("webhook", "/postbox/webhooks/ep-1");
        p.put("schedules", "/postbox/schedules");
        p.put("queues", "/postbox/queues");
        return p;
    }

    /** Sizes of the scenario. */
    record Volumes(int archived, int dead, int live, int requests) {
        static Volumes fromSystemProperties() {
            return new Volumes(
                    Integer.getInteger("bench.consoleArchived", 1_000_000),
                    Integer.getInteger("bench.consoleDead", 100_000),
                    Integer.getInteger("bench.consoleLive", 50_000),
                    Integer.getInteger("bench.consoleRequests", 30));
        }
    }

    static Map<String, Object> run(Env env, Volumes v) throws Exception {
        HikariDataSource ds = Db.create();
        long t0 = System.nanoTime();
        ConfigurableApplicationContext app = null;
        try {
            fill(ds, v);
            app = new SpringApplicationBuilder(ConsoleApplication.class)
                    .initializers(c -> c.getBeanFactory().registerSingleton("benchDataSource", ds))
                    .properties(
                            "server.port=0",
                            "server.address=127.0.0.1",
                            "spring.main.banner-mode=off",
                            "postbox.worker.enabled=false",
                            // a loopback-only benchmark app without Spring Security: its pages are read anonymously
                            "postbox.console.allow-anonymous=true",
                            "postbox.http.allow-list=127.0.0.1/32",
                            "postbox.schedules.nightly.cron=0 2 * * *",
                            "postbox.schedules.nightly.kind=kind-1",
                            "logging.level.root=WARN")
                    .run();
            String base = "http://127.0.0.1:" + app.getEnvironment().getProperty("local.server.port");
            HttpClient http = HttpClient.newBuilder()
                    .connectTimeout(Duration.ofSeconds(5))
                    .build();
            Map<String, Object> pages = new LinkedHashMap<>();
            Histogram overall = new Histogram(60_000_000L, 3);
            double worstP99 = 0;
            Map<String, String> all = pages(v);
            for (Map.Entry<String, String> page : all.entrySet()) {
                for (int i = 0; i < WARM_UP; i++) {
                    get(http, base + page.getValue()); // templates, statement plans, connections, JIT
                }
                Histogram micros = new Histogram(60_000_000L, 3);
                for (int i = 0; i < v.requests(); i++) {
                    long begin = System.nanoTime();
                    get(http, base + page.getValue());
                    long took = (System.nanoTime() - begin) / 1000;
                    micros.recordValue(took);
                    overall.recordValue(took);
                }
                Map<String, Object> p = new LinkedHashMap<>();
                p.put("path", page.getValue());
                p.put("p50Ms", StartLatency.ms(micros, 50));
                p.put("p99Ms", StartLatency.ms(micros, 99));
                p.put("maxMs", Env.round(micros.getMaxValue() / 1000.0, 2));
                pages.put(page.getKey(), p);
                worstP99 = Math.max(worstP99, (Double) p.get("p99Ms"));
                log.info("console {}: p50 {} ms, p99 {} ms", page.getKey(), p.get("p50Ms"), p.get("p99Ms"));
            }
            Map<String, Object> r =
                    env.result("console", (long) v.requests() * all.size(), (System.nanoTime() - t0) / 1e9);
            r.put("jobsPerSecond", null);
            r.put("p50Ms", StartLatency.ms(overall, 50));
            r.put("p99Ms", StartLatency.ms(overall, 99));
            r.put("p999Ms", StartLatency.ms(overall, 99.9));
            r.put("archived", v.archived());
            r.put("deadLetters", v.dead());
            r.put("live", v.live());
            r.put("requestsPerPage", v.requests());
            r.put("targetMs", TARGET_MS);
            r.put("worstPageP99Ms", worstP99);
            r.put("allPagesWithinTarget", worstP99 <= TARGET_MS);
            r.put("pages", pages);
            r.put(
                    "notes",
                    "page renders over loopback HTTP (" + v.archived() + " archived, " + v.dead()
                            + " dead, " + v.live() + " live); latency columns over all pages; worst page p99 "
                            + worstP99
                            + " ms (target " + TARGET_MS + ")");
            return r;
        } finally {
            if (app != null) {
                app.close();
            }
            Db.drop(ds);
        }
    }

    private static void get(HttpClient http, String url) throws Exception {
        HttpResponse<String> response =
                http.send(HttpRequest.newBuilder(URI.create(url)).GET().build(), HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) {
            throw new IllegalStateException("GET " + url + " answered " + response.statusCode() + ": "
                    + response.body().substring(0, Math.min(500, response.body().length())));
        }
    }

    /** Fills the database in a few set-based statements, in time order as production would. */
    static void fill(DataSource ds, Volumes v) throws Exception {
        long fill0 = System.nanoTime();
        try (Connection c = ds.getConnection();
                Statement s = c.createStatement()) {
            c.setAutoCommit(true);
            s.execute("INSERT INTO outbox_endpoint (name, url, secrets, rate_per_second, rate_burst)"
                    + " SELECT 'ep-' || g, 'http://127.0.0.1:9/hook/' || g,"
                    + " ARRAY['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'], 10, 20 FROM generate_series(0, 7) g");
            s.execute("INSERT INTO outbox_job_archive (id, queue, kind, endpoint, idempotency_key, payload, priority,"
                    + " state, attempts, max_attempts, created_at, started_at, finished_at)"
                    + " SELECT g, 'q' || (g % 3), 'kind-' || (g % 20), CASE WHEN g % 4 = 0 THEN 'ep-' || (g % 8) END,"
                    + " 'key-' || g, jsonb_build_object('n', g), 0, 'done', 1, 8, ts - interval '1 second', ts, ts"
                    + " FROM (SELECT g, now() - (" + v.archived() + " - g) * (604800.0 / " + v.archived() + ")"
                    + "   * interval '1 second' AS ts FROM generate_series(1, " + v.archived() + ") g) x");
            s.execute("INSERT INTO outbox_idempotency_key (idempotency_key, job_id, expires_at)"
                    + " SELECT 'key-' || g, g, now() + interval '7 days' FROM generate_series(1, " + v.archived()
                    + ") g");
            s.execute("INSERT INTO outbox_dead_letter (id, queue, kind, endpoint, payload, priority, attempts,"
                    + " max_attempts, last_error, created_at, dead_at) SELECT 100000000 + g, 'q' || (g % 3),"
                    + " 'kind-' || (g % 5), CASE WHEN g % 4 = 0 THEN 'ep-' || (g % 8) END, '{}', (g % 3) - 1, 8, 8,"
                    + " 'failure ' || (g % 40) || ' of order ' || (100000 + g), now() - interval '8 days',"
                    + " now() - (" + v.dead() + " - g) * interval '5 seconds' FROM generate_series(1, " + v.dead()
                    + ") g");
            s.execute("INSERT INTO outbox_job (queue, kind, payload, priority, state, run_at) SELECT 'q' || (g % 3),"
                    + " 'kind-' || (g % 5), '{}', (g % 3) - 1, CASE WHEN g % 10 = 0 THEN 'retry' ELSE 'pending' END,"
                    + " now() + ((g % 7) - 3) * interval '1 minute' FROM generate_series(1, " + v.live() + ") g");
            s.execute("INSERT INTO outbox_attempt (job_id, attempt, worker, lease_token, started_at, finished_at,"
                    + " outcome, status_code, error, duration_ms, detail) SELECT g * 4, 1, 'w1', g, ts, ts, 'retry',"
                    + " 503, 'HTTP 503', 100 + g % 900, jsonb_build_object('endpoint', 'ep-' || (g % 8))"
                    + " FROM (SELECT g, now() - g * interval '1 second' AS ts FROM generate_series(1, 50000) g) x");
            s.execute("INSERT INTO outbox_worker (id, host, queues) SELECT 'worker-' || g, 'host-' || g,"
                    + " '{q0,q1,q2}' FROM generate_series(1, 4) g");
            s.execute("VACUUM ANALYZE");
        }
        log.info("console fixtures filled in {} s", Env.round((System.nanoTime() - fill0) / 1e9, 1));
    }

    /** The application the scenario times: Boot's auto-configuration on the scenario's DataSource. */
    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class ConsoleApplication {}
}
