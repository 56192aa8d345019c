package dev.postbox.console.internal;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import org.springframework.web.servlet.View;
import org.springframework.web.servlet.mvc.support.RedirectAttributes;
import org.springframework.web.servlet.view.RedirectView;

/**
 * The end of every write action: one audit line with the user, then a redirect to a console page
 * with a notice of what was done (post/redirect/get, so a reload never repeats the action).
 */
public final class ConsoleActions {

    private final String path;
    private final ConsoleAccess access;
    private final ConsoleAudit audit;

    public ConsoleActions(String path, ConsoleAccess access, ConsoleAudit audit) {
        this.path = path;
        this.access = access;
        this.audit = audit;
    }

    /** Audits the action and redirects to {@code page} (relative to the console) with a notice. */
    public View done(
            HttpServletRequest request,
            RedirectAttributes flash,
            String action,
            String target,
            String result,
            String page) {
        audit.done(access.principal(request), action, target, result);
        flash.addFlashAttribute("notice", capitalised(action) + " " + target + ": " + result + ".");
        return redirect(page);
    }

    /** Audits an action whose result page is rendered directly (it shows something only once). */
    public void audited(HttpServletRequest request, String action, String target, String result) {
        audit.done(access.principal(request), action, target, result);
    }

    public String principal(HttpServletRequest request) {
        return access.principal(request);
    }

    public View redirect(String page) {
        RedirectView view = new CookieOnlyRedirect(path + page);
        view.setExposeModelAttributes(false);
        return view;
    }

    /**
     * A redirect whose location the container does not rewrite with {@code ;jsessionid=}: the console
     * tracks its session by cookie only (see {@link CookieOnlyLinks}).
     */
    private static final class CookieOnlyRedirect extends RedirectView {
        CookieOnlyRedirect(String url) {
            super(url, true);
        }

        @Override
        protected void sendRedirect(
                HttpServletRequest request, HttpServletResponse response, String targetUrl, boolean http10Compatible)
                throws IOException {
            response.sendRedirect(targetUrl);
        }
    }

    private static String capitalised(String s) {
        return s.isEmpty() ? s : Character.toUpperCase(s.charAt(0)) + s.substring(1);
    }
}
