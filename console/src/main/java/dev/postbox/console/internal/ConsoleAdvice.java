package dev.postbox.console.internal;

import dev.postbox.console.PostboxConsoleProperties;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.time.Instant;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.ControllerAdvice;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.ModelAttribute;
import org.springframework.web.servlet.ModelAndView;

/**
 * For the console's controllers only: the {@link ConsoleContext} every page's layout reads, and the
 * error pages (403 refused write, 404 unknown thing, 400 bad input with the message that names the
 * fix). Its model attribute repeats {@link ConsoleGuard}'s check before every handler method.
 */
@ControllerAdvice(basePackageClasses = ConsoleAdvice.class)
@Order(Ordered.HIGHEST_PRECEDENCE)
public final class ConsoleAdvice {

    private final PostboxConsoleProperties properties;
    private final ConsoleAccess access;
    private final ConsoleGuard guard;
    private final CsrfTokens csrf;
    private final ConsoleViews views;
    private final boolean webhooks;
    private final String htmxVersion;

    public ConsoleAdvice(
            PostboxConsoleProperties properties,
            ConsoleAccess access,
            ConsoleGuard guard,
            CsrfTokens csrf,
            ConsoleViews views,
            boolean webhooks,
            String htmxVersion) {
        this.properties = properties;
        this.access = access;
        this.guard = guard;
        this.csrf = csrf;
        this.views = views;
        this.webhooks = webhooks;
        this.htmxVersion = htmxVersion;
    }

    /**
     * Runs before every console handler method: the access check in the handler path itself, so a
     * console whose interceptor an application's MVC configuration dropped still refuses.
     */
    @ModelAttribute("console")
    public ConsoleContext console(HttpServletRequest request, HttpServletResponse response) {
        guard.check(request, response);
        return context(request);
    }

    private ConsoleContext context(HttpServletRequest request) {
        boolean canWrite = guard.canWrite(request);
        return new ConsoleContext(
                properties.getPath(),
                access.principal(request),
                canWrite,
                properties.isWriteEnabled(),
                CsrfTokens.PARAMETER,
                canWrite ? csrf.token(request) : null,
                canWrite ? access.frameworkCsrf(request) : null,
                webhooks,
                properties.isShowPayloads(),
                properties.getRefreshInterval().toSeconds(),
                htmxVersion,
                new Formats(Instant.now()));
    }

    @ExceptionHandler(ConsoleRefusedException.class)
    public ModelAndView refused(ConsoleRefusedException e, HttpServletRequest request) {
        return error(
                e.authenticated() ? HttpStatus.FORBIDDEN : HttpStatus.UNAUTHORIZED, "Refused", messageOf(e), request);
    }

    @ExceptionHandler(ConsoleNotFoundException.class)
    public ModelAndView notFound(ConsoleNotFoundException e, HttpServletRequest request) {
        return error(HttpStatus.NOT_FOUND, "Not found", messageOf(e), request);
    }

    @ExceptionHandler(IllegalArgumentException.class)
    public ModelAndView badInput(IllegalArgumentException e, HttpServletRequest request) {
        return error(HttpStatus.BAD_REQUEST, "Cannot do that", messageOf(e), request);
    }

    /** The exception's message; its type when it has none (no exception of ours is thrown without one). */
    private static String messageOf(RuntimeException e) {
        String message = e.getMessage();
        return message != null ? message : e.getClass().getSimpleName();
    }

    private ModelAndView error(HttpStatus status, String title, String message, HttpServletRequest request) {
        ModelAndView mav = new ModelAndView(views.page("error"));
        mav.setStatus(status);
        mav.addObject("console", context(request));
        mav.addObject("status", status.value());
        mav.addObject("title", title);
        mav.addObject("message", message);
        mav.addObject("section", "");
        return mav;
    }
}
