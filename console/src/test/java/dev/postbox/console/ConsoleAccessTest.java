package dev.postbox.console;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.CookieManager;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurationSupport;

/**
 * The console fails closed: in an application whose own security lets every request through, the
 * console itself refuses readers without the read role (401 anonymous, 403 without the role) and
 * every anonymous write, even with postbox.console.allow-anonymous=true. An application whose MVC
 * configuration replaces the one that registers the console's interceptor still gets a closed
 * console: the check runs in the handler path too.
 */
class ConsoleAccessTest {

    private static final Pattern OWN_TOKEN = Pattern.compile("name=\"_postbox_csrf\" value=\"([^\"]+)\"");

    /** Replaces Spring MVC's configuration: no WebMvcConfigurer of anyone applies (no interceptor, no prefix). */
    @Configuration(proxyBeanMethods = false)
    static class ReplacedMvc extends WebMvcConfigurationSupport {}

    @Test
    void readersNeedTheReadRoleAndWritersTheWriteRole() throws Exception {
        try (ConfigurableApplicationContext app =
                ConsoleTestApplication.startWith(OpenSecurity.class, "postbox.console.write-enabled=true")) {
            JdbcTemplate jdbc = ConsoleFixtures.fill(app);
            Client anonymous = new Client(app, null);
            for (String page : new String[] {
                "/postbox", "/postbox/jobs?window=24h", "/postbox/jobs/4711", "/postbox/dead-letters", "/postbox/queues"
            }) {
                HttpResponse<String> r = anonymous.get(page);
                assertThat(r.statusCode()).as(page).isEqualTo(401);
                assertThat(r.body())
                        .as(page)
                        .contains("postbox.console.read-role")
                        .doesNotContain("order-4711");
            }
            assertThat(new Client(app, "stranger").get("/postbox/jobs/4711").statusCode())
                    .isEqualTo(403);
            assertThat(new Client(app, "viewer").get("/postbox/jobs/4711").body())
                    .contains("order-4711");

            assertThat(anonymous.post("/postbox/queues/default/pause", "").statusCode())
                    .isEqualTo(401);
            Client viewer = new Client(app, "viewer");
            viewer.get("/postbox/queues");
            assertThat(viewer.post("/postbox/queues/default/pause", "").statusCode())
                    .isEqualTo(403);
            assertThat(paused(jdbc)).isZero();

            Client operator = new Client(app, "operator");
            String token = operator.token("/postbox/queues");
            assertThat(operator.post("/postbox/queues/default/pause", "_postbox_csrf=" + token)
                            .statusCode())
                    .as("the operator with the console's token may write")
                    .isEqualTo(302);
            assertThat(paused(jdbc)).isOne();
        }
    }

    @Test
    void allowAnonymousOpensReadingButNeverWriting() throws Exception {
        try (ConfigurableApplicationContext app = ConsoleTestApplication.startWith(
                OpenSecurity.class, "postbox.console.write-enabled=true", "postbox.console.allow-anonymous=true")) {
            JdbcTemplate jdbc = ConsoleFixtures.fill(app);
            Client anonymous = new Client(app, null);
            assertThat(anonymous.get("/postbox/jobs/4711").body()).contains("order-4711");

            HttpResponse<String> write = anonymous.post("/postbox/queues/default/pause", "_postbox_csrf=guess");
            assertThat(write.statusCode()).isEqualTo(401);
            assertThat(write.body()).contains("postbox.console.role");
            assertThat(paused(jdbc)).isZero();
        }
    }

    @Test
    void anApplicationThatReplacesTheMvcConfigurationStillGetsAClosedConsole() throws Exception {
        try (ConfigurableApplicationContext app = ConsoleTestApplication.startWith(
                new Class<?>[] {OpenSecurity.class, ReplacedMvc.class}, "postbox.console.write-enabled=true")) {
            JdbcTemplate jdbc = ConsoleFixtures.fill(app);
            // Without the console's WebMvcConfigurer its controllers lose their path prefix too.
            Client anonymous = new Client(app, null);
            assertThat(anonymous.get("/jobs/4711").statusCode()).isEqualTo(401);
            assertThat(anonymous.post("/queues/default/pause", "").statusCode()).isEqualTo(401);
            Client operator = new Client(app, "operator");
            assertThat(operator.get("/jobs/4711").body()).contains("order-4711");
            HttpResponse<String> forged = operator.post("/queues/default/pause", "");
            assertThat(forged.statusCode()).isEqualTo(403);
            assertThat(forged.body()).contains("CSRF token");
            assertThat(paused(jdbc)).isZero();
        }
    }

    private static long paused(JdbcTemplate jdbc) {
        return jdbc.queryForObject("SELECT count(*) FROM outbox_queue WHERE paused", Long.class);
    }

    /** An HTTP client with a session (cookies) and, unless anonymous, HTTP Basic credentials. */
    static final class Client {
        private final String base;
        private final @Nullable String authorization;
        private final HttpClient http;

        Client(ConfigurableApplicationContext app, @Nullable String user) {
            this.base = "http://127.0.0.1:" + app.getEnvironment().getProperty("local.server.port");
            this.authorization = user == null
                    ? null
                    : "Basic "
                            + Base64.getEncoder()
                                    .encodeToString(
                                            (user + ":" + TestSecurity.PASSWORD).getBytes(StandardCharsets.UTF_8));
            this.http = HttpClient.newBuilder()
                    .cookieHandler(new CookieManager())
                    .followRedirects(HttpClient.Redirect.NEVER)
                    .build();
        }

        HttpResponse<String> get(String path) throws Exception {
            return http.send(request(path).GET().build(), HttpResponse.BodyHandlers.ofString());
        }

        HttpResponse<String> post(String path, String form) throws Exception {
            return http.send(
                    request(path)
                            .header("Content-Type", "application/x-www-form-urlencoded")
                            .POST(HttpRequest.BodyPublishers.ofString(form))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
        }

        /** The console's CSRF token from a page's forms. */
        String token(String page) throws Exception {
            Matcher m = OWN_TOKEN.matcher(get(page).body());
            assertThat(m.find())
                    .as("a form with the console's token on " + page)
                    .isTrue();
            return m.group(1);
        }

        private HttpRequest.Builder request(String path) {
            HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path));
            if (authorization != null) {
                b.header("Authorization", authorization);
            }
            return b;
        }
    }
}
