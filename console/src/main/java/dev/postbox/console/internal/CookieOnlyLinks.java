package dev.postbox.console.internal;

import org.thymeleaf.context.IExpressionContext;
import org.thymeleaf.linkbuilder.StandardLinkBuilder;

/**
 * Links as the templates build them, without the servlet container's URL rewriting: the console
 * tracks its session by cookie only, so no link, form or script URL carries {@code ;jsessionid=},
 * which would put the session id into logs, browser history and Referer headers.
 */
final class CookieOnlyLinks extends StandardLinkBuilder {

    @Override
    protected String processLink(IExpressionContext context, String link) {
        return link;
    }
}
