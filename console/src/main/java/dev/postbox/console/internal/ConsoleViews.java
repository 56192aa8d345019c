package dev.postbox.console.internal;

import java.util.Locale;
import org.springframework.context.ApplicationContext;
import org.springframework.web.servlet.View;
import org.thymeleaf.spring6.SpringTemplateEngine;
import org.thymeleaf.spring6.view.ThymeleafViewResolver;
import org.thymeleaf.templatemode.TemplateMode;
import org.thymeleaf.templateresolver.ClassLoaderTemplateResolver;

/**
 * The console's own Thymeleaf engine and views: templates from {@code
 * classpath:dev/postbox/console/templates/}, never through the application's view resolvers, so an
 * application's Thymeleaf settings (or its lack of Thymeleaf) do not matter and its templates cannot
 * shadow the console's. Links are not rewritten with the session id ({@link CookieOnlyLinks}).
 */
public final class ConsoleViews {

    private final ThymeleafViewResolver resolver = new ThymeleafViewResolver();

    public ConsoleViews(ApplicationContext context) {
        ClassLoaderTemplateResolver templates = new ClassLoaderTemplateResolver(ConsoleViews.class.getClassLoader());
        templates.setPrefix("dev/postbox/console/templates/");
        templates.setSuffix(".html");
        templates.setTemplateMode(TemplateMode.HTML);
        templates.setCharacterEncoding("UTF-8");
        templates.setCacheable(true);
        SpringTemplateEngine engine = new SpringTemplateEngine();
        engine.setTemplateResolver(templates);
        engine.setLinkBuilder(new CookieOnlyLinks());
        engine.setEnableSpringELCompiler(true);
        resolver.setTemplateEngine(engine);
        resolver.setCharacterEncoding("UTF-8");
        resolver.setContentType("text/html;charset=UTF-8");
        resolver.setApplicationContext(context);
    }

    /** The view of one page template. */
    public View page(String template) {
        try {
            View view = resolver.resolveViewName(template, Locale.ROOT);
            if (view == null) {
                throw new IllegalStateException("No console template '" + template + "'");
            }
            return view;
        } catch (Exception e) {
            throw new IllegalStateException("Console template '" + template + "' failed to load: " + e.getMessage(), e);
        }
    }
}
