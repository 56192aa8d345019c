package dev.postbox.console.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.postbox.console.PostboxConsoleProperties;
import jakarta.servlet.http.HttpServletRequest;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;
import org.springframework.mock.web.MockHttpSession;

/**
 * The guard's decisions. Without Spring Security nobody is authenticated: reading needs
 * allow-anonymous and writing is refused whatever the settings. A writer's POST without the
 * session's CSRF token, or with another session's, is refused. Reads carry the protective headers.
 */
class ConsoleGuardTest {

    private final PostboxConsoleProperties properties = new PostboxConsoleProperties();
    private final CsrfTokens csrf = new CsrfTokens();

    /** An authenticated operator, as Spring Security would report one. */
    private static final class Operator implements ConsoleAccess {
        @Override
        public String principal(HttpServletRequest request) {
            return "operator";
        }

        @Override
        public boolean authenticated(HttpServletRequest request) {
            return true;
        }

        @Override
        public boolean mayRead(HttpServletRequest request) {
            return true;
        }

        @Override
        public boolean mayWrite(HttpServletRequest request) {
            return true;
        }

        @Override
        public String readRefusal(HttpServletRequest request) {
            return "";
        }

        @Override
        public String writeRefusal(HttpServletRequest request) {
            return "";
        }

        @Override
        public @Nullable HiddenField frameworkCsrf(HttpServletRequest request) {
            return null;
        }
    }

    private ConsoleGuard guard(ConsoleAccess access) {
        return new ConsoleGuard(properties, access, csrf, new ConsoleAudit());
    }

    private MockHttpServletRequest post(MockHttpSession session) {
        MockHttpServletRequest request = new MockHttpServletRequest("POST", "/postbox/queues/default/pause");
        request.setSession(session);
        return request;
    }

    @Test
    void withoutSpringSecurityReadingNeedsAllowAnonymousAndWritingIsAlwaysRefused() {
        ConsoleGuard closed = guard(new ServletConsoleAccess());
        MockHttpServletRequest read = new MockHttpServletRequest("GET", "/postbox/jobs");
        assertThatThrownBy(() -> closed.preHandle(read, new MockHttpServletResponse(), new Object()))
                .isInstanceOf(ConsoleRefusedException.class)
                .hasMessageContaining("postbox.console.allow-anonymous=true")
                .satisfies(e -> assertThat(((ConsoleRefusedException) e).authenticated())
                        .as("401")
                        .isFalse());

        properties.setAllowAnonymous(true);
        properties.setWriteEnabled(true);
        ConsoleGuard open = guard(new ServletConsoleAccess());
        assertThatCode(() -> open.preHandle(read, new MockHttpServletResponse(), new Object()))
                .doesNotThrowAnyException();
        MockHttpServletRequest write = post(new MockHttpSession());
        write.setParameter(CsrfTokens.PARAMETER, csrf.token(write));
        assertThatThrownBy(() -> open.preHandle(write, new MockHttpServletResponse(), new Object()))
                .isInstanceOf(ConsoleRefusedException.class)
                .hasMessageContaining("postbox.console.role");
        assertThat(open.canWrite(write)).isFalse();
    }

    @Test
    void aForgedPostIsRefusedByTheConsolesOwnToken() {
        properties.setWriteEnabled(true);
        ConsoleGuard guard = guard(new Operator());
        MockHttpSession session = new MockHttpSession();
        MockHttpServletRequest page = new MockHttpServletRequest("GET", "/postbox/queues");
        page.setSession(session);
        String token = csrf.token(page);

        MockHttpServletRequest forged = post(session);
        MockHttpServletRequest otherSessionsToken = post(session);
        otherSessionsToken.setParameter(CsrfTokens.PARAMETER, csrf.token(new MockHttpServletRequest()));
        MockHttpServletRequest genuine = post(session);
        genuine.setParameter(CsrfTokens.PARAMETER, token);

        assertThatThrownBy(() -> guard.preHandle(forged, new MockHttpServletResponse(), new Object()))
                .isInstanceOf(ConsoleRefusedException.class)
                .hasMessageContaining("CSRF token");
        assertThatThrownBy(() -> guard.preHandle(otherSessionsToken, new MockHttpServletResponse(), new Object()))
                .isInstanceOf(ConsoleRefusedException.class);
        assertThat(guard.preHandle(genuine, new MockHttpServletResponse(), new Object()))
                .isTrue();
    }

    @Test
    void aFloodOfRefusedPostsLogsOneWarningNotOnePerRequest() {
        Logger logger = (Logger) LoggerFactory.getLogger("dev.postbox.console.audit");
        ListAppender<ILoggingEvent> lines = new ListAppender<>();
        lines.start();
        logger.addAppender(lines);
        try {
            ConsoleGuard guard = guard(new Operator());
            for (int i = 0; i < 200; i++) {
                MockHttpServletRequest forged = post(new MockHttpSession());
                assertThatThrownBy(() -> guard.preHandle(forged, new MockHttpServletResponse(), new Object()))
                        .isInstanceOf(ConsoleRefusedException.class);
            }
            assertThat(lines.list).filteredOn(e -> e.getLevel() == Level.WARN).hasSize(1);
            assertThat(lines.list.get(0).getFormattedMessage())
                    .contains(
                            "Rejected 1 console write(s)",
                            "POST /postbox/queues/default/pause by operator",
                            "read-only");
        } finally {
            logger.detachAppender(lines);
        }
    }

    @Test
    void aReadOnlyConsoleRefusesEvenAPostWithTheRightToken() {
        ConsoleGuard guard = guard(new Operator());
        MockHttpSession session = new MockHttpSession();
        MockHttpServletRequest request = post(session);
        request.setParameter(CsrfTokens.PARAMETER, csrf.token(request));

        assertThatThrownBy(() -> guard.preHandle(request, new MockHttpServletResponse(), new Object()))
                .isInstanceOf(ConsoleRefusedException.class)
                .hasMessageContaining("postbox.console.write-enabled=true");
        assertThat(guard.canWrite(request)).isFalse();
    }

    @Test
    void pagesAreNeitherCachedNorFramedAndRunOnlyTheConsolesScripts() {
        MockHttpServletResponse response = new MockHttpServletResponse();

        assertThat(guard(new Operator())
                        .preHandle(new MockHttpServletRequest("GET", "/postbox"), response, new Object()))
                .isTrue();

        assertThat(response.getHeader("Cache-Control")).isEqualTo("no-store");
        assertThat(response.getHeader("X-Frame-Options")).isEqualTo("DENY");
        assertThat(response.getHeader("Content-Security-Policy"))
                .contains("script-src 'self'")
                .doesNotContain("unsafe-inline");
    }
}
