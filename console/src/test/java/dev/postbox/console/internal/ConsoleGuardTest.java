package dev.postbox.console.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.postbox.console.PostboxConsoleProperties;
import org.junit.jupiter.api.Test;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;
import org.springframework.mock.web.MockHttpSession;

/**
 * Without Spring Security the console's own CSRF token is the only guard of a write: a POST
 * without the session's token, or with another session's, is refused; with it, it passes. Reads
 * pass and carry the protective headers.
 */
class ConsoleGuardTest {

    private final PostboxConsoleProperties properties = new PostboxConsoleProperties();
    private final CsrfTokens csrf = new CsrfTokens();
    private final ConsoleGuard guard =
            new ConsoleGuard(properties, new ServletConsoleAccess(), csrf, new ConsoleAudit());

    private MockHttpServletRequest post(MockHttpSession session) {
        MockHttpServletRequest request = new MockHttpServletRequest("POST", "/postbox/queues/default/pause");
        request.setSession(session);
        return request;
    }

    @Test
    void withoutSpringSecurityAForgedPostIsRefusedByTheConsolesOwnToken() {
        properties.setWriteEnabled(true);
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
    void aReadOnlyConsoleRefusesEvenAPostWithTheRightToken() {
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

        assertThat(guard.preHandle(new MockHttpServletRequest("GET", "/postbox"), response, new Object()))
                .isTrue();

        assertThat(response.getHeader("Cache-Control")).isEqualTo("no-store");
        assertThat(response.getHeader("X-Frame-Options")).isEqualTo("DENY");
        assertThat(response.getHeader("Content-Security-Policy"))
                .contains("script-src 'self'")
                .doesNotContain("unsafe-inline");
    }
}
