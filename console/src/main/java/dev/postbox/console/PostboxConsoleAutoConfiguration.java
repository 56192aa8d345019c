package dev.postbox.console;

import dev.postbox.Postbox;
import dev.postbox.console.internal.ConsoleAccess;
import dev.postbox.console.internal.ConsoleActions;
import dev.postbox.console.internal.ConsoleAdvice;
import dev.postbox.console.internal.ConsoleAudit;
import dev.postbox.console.internal.ConsoleDatabase;
import dev.postbox.console.internal.ConsoleGuard;
import dev.postbox.console.internal.ConsoleViews;
import dev.postbox.console.internal.CsrfTokens;
import dev.postbox.console.internal.DeadLetterGroupStore;
import dev.postbox.console.internal.DeadLettersController;
import dev.postbox.console.internal.EndpointStatsStore;
import dev.postbox.console.internal.JobDetailStore;
import dev.postbox.console.internal.JobSearchStore;
import dev.postbox.console.internal.JobsController;
import dev.postbox.console.internal.LastHourStore;
import dev.postbox.console.internal.OverviewController;
import dev.postbox.console.internal.QueueStore;
import dev.postbox.console.internal.QueuesController;
import dev.postbox.console.internal.ScheduleAdapter;
import dev.postbox.console.internal.ScheduleFireStore;
import dev.postbox.console.internal.SchedulesController;
import dev.postbox.console.internal.ServletConsoleAccess;
import dev.postbox.console.internal.SpringSecurityConsoleAccess;
import dev.postbox.console.internal.WebhooksController;
import dev.postbox.console.internal.WorkerStore;
import dev.postbox.spring.PostboxProperties;
import dev.postbox.spring.endpoint.WebhookEndpointAdmin;
import dev.postbox.spring.health.PostboxHealthProperties;
import dev.postbox.spring.schedule.PostboxScheduleAdmin;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.Properties;
import javax.sql.DataSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.web.method.HandlerTypePredicate;
import org.springframework.web.servlet.DispatcherServlet;
import org.springframework.web.servlet.config.annotation.InterceptorRegistry;
import org.springframework.web.servlet.config.annotation.PathMatchConfigurer;
import org.springframework.web.servlet.config.annotation.ResourceHandlerRegistry;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;

/**
 * The operator console in a Spring MVC application: pages at {@code postbox.console.path} (default
 * {@value PostboxConsoleProperties#DEFAULT_PATH}), closed to everyone but authenticated users with
 * {@code postbox.console.read-role} or {@code postbox.console.role} (unless {@code
 * postbox.console.allow-anonymous=true}), read-only unless {@code postbox.console.write-enabled=true},
 * write actions behind {@code postbox.console.role} (which needs Spring Security) and a CSRF token. The webhook pages appear when {@code
 * postbox-delivery-http} is configured.
 *
 * <p>Everything that depends on Spring Boot (conditions, property binding) is in this class; the
 * pages, the store and the access checks use Spring Framework and the servlet API only, so the same
 * code serves every Boot line the starter supports.
 */
@AutoConfiguration(
        afterName = {
            "dev.postbox.spring.PostboxAutoConfiguration",
            "dev.postbox.spring.schedule.PostboxScheduleAutoConfiguration",
            "dev.postbox.spring.http.PostboxHttpAutoConfiguration"
        })
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass(DispatcherServlet.class)
@ConditionalOnBean(Postbox.class)
@ConditionalOnBooleanProperty(name = "postbox.console.enabled", matchIfMissing = true)
@EnableConfigurationProperties(PostboxConsoleProperties.class)
public class PostboxConsoleAutoConfiguration {

    /** Where the build wrote the htmx WebJar version this module was built with. */
    private static final String BUILD_PROPERTIES = "/dev/postbox/console/console-build.properties";

    @Bean
    @ConditionalOnMissingBean
    ConsoleDatabase postboxConsoleDatabase(DataSource dataSource, PostboxProperties postbox) {
        // Postbox's tables in their schema (postbox.schema.name), as the engine names them.
        return new ConsoleDatabase(postbox.getSchema().postboxSchema().dataSource(dataSource));
    }

    @Bean
    ConsoleAudit postboxConsoleAudit() {
        return new ConsoleAudit();
    }

    @Bean
    CsrfTokens postboxConsoleCsrfTokens() {
        return new CsrfTokens();
    }

    @Bean
    ConsoleGuard postboxConsoleGuard(
            PostboxConsoleProperties properties, ConsoleAccess access, CsrfTokens csrf, ConsoleAudit audit) {
        return new ConsoleGuard(properties, access, csrf, audit);
    }

    @Bean
    ConsoleViews postboxConsoleViews(ApplicationContext context) {
        return new ConsoleViews(context);
    }

    @Bean
    ConsoleActions postboxConsoleActions(
            PostboxConsoleProperties properties, ConsoleAccess access, ConsoleAudit audit) {
        return new ConsoleActions(properties.getPath(), access, audit);
    }

    @Bean
    ConsoleAdvice postboxConsoleAdvice(
            PostboxConsoleProperties properties,
            ConsoleAccess access,
            ConsoleGuard guard,
            CsrfTokens csrf,
            ConsoleViews views,
            ObjectProvider<WebhookEndpointAdmin> endpoints) {
        return new ConsoleAdvice(
                properties, access, guard, csrf, views, endpoints.getIfAvailable() != null, htmxVersion());
    }

    @Bean
    OverviewController postboxConsoleOverview(
            ConsoleDatabase database, ConsoleViews views, Environment environment, Postbox postbox) {
        return new OverviewController(
                new QueueStore(database),
                new LastHourStore(database),
                new WorkerStore(database),
                postbox,
                views,
                slo(environment),
                workerAlive(postbox));
    }

    @Bean
    QueuesController postboxConsoleQueues(
            ConsoleDatabase database,
            Postbox postbox,
            ConsoleViews views,
            ConsoleActions actions,
            Environment environment) {
        return new QueuesController(new QueueStore(database), postbox.admin(), views, actions, slo(environment));
    }

    @Bean
    JobsController postboxConsoleJobs(
            ConsoleDatabase database,
            Postbox postbox,
            ConsoleViews views,
            ConsoleActions actions,
            PostboxConsoleProperties properties) {
        return new JobsController(
                new JobSearchStore(database),
                new JobDetailStore(database),
                database,
                postbox.admin(),
                views,
                actions,
                properties);
    }

    @Bean
    DeadLettersController postboxConsoleDeadLetters(
            ConsoleDatabase database,
            Postbox postbox,
            ConsoleViews views,
            ConsoleActions actions,
            PostboxConsoleProperties properties) {
        return new DeadLettersController(
                new DeadLetterGroupStore(database), database, postbox.admin(), views, actions, properties);
    }

    @Bean
    @ConditionalOnBean(PostboxScheduleAdmin.class)
    SchedulesController postboxConsoleSchedules(
            PostboxScheduleAdmin admin, ConsoleDatabase database, ConsoleViews views, ConsoleActions actions) {
        return new SchedulesController(new ScheduleAdapter(admin, new ScheduleFireStore(database)), views, actions);
    }

    @Bean
    WebMvcConfigurer postboxConsoleMvc(PostboxConsoleProperties properties, ConsoleGuard guard) {
        String path = properties.getPath();
        return new WebMvcConfigurer() {
            @Override
            public void configurePathMatch(PathMatchConfigurer configurer) {
                configurer.addPathPrefix(path, HandlerTypePredicate.forBasePackageClass(ConsoleAdvice.class));
            }

            @Override
            public void addInterceptors(InterceptorRegistry registry) {
                registry.addInterceptor(guard).addPathPatterns(path, path + "/**");
            }

            @Override
            public void addResourceHandlers(ResourceHandlerRegistry registry) {
                registry.addResourceHandler(path + "/assets/**")
                        .addResourceLocations("classpath:/dev/postbox/console/static/");
                registry.addResourceHandler(path + "/htmx/**")
                        .addResourceLocations(
                                "classpath:/META-INF/resources/webjars/htmx.org/" + htmxVersion() + "/dist/");
            }
        };
    }

    /** The oldest-due-age SLO is postbox.health.oldest-age-threshold, whether or not health is configured. */
    private static Duration slo(Environment environment) {
        return Binder.get(environment)
                .bindOrCreate("postbox.health", PostboxHealthProperties.class)
                .getOldestAgeThreshold();
    }

    /** A worker whose heartbeat is older than its lease would be has stopped: its jobs get rescued. */
    private static Duration workerAlive(Postbox postbox) {
        return postbox.config().visibilityTimeout().plus(postbox.config().heartbeatInterval());
    }

    static String htmxVersion() {
        Properties p = new Properties();
        try (InputStream in = PostboxConsoleAutoConfiguration.class.getResourceAsStream(BUILD_PROPERTIES)) {
            if (in == null) {
                throw new IllegalStateException(BUILD_PROPERTIES + " is missing from the console's jar");
            }
            p.load(in);
        } catch (IOException e) {
            throw new IllegalStateException("Reading " + BUILD_PROPERTIES + " failed", e);
        }
        return p.getProperty("htmx.version");
    }

    /** Roles and Spring Security's CSRF token when Spring Security is on the classpath. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.security.core.context.SecurityContextHolder")
    static class SpringSecurityAccess {
        @Bean
        @ConditionalOnMissingBean
        ConsoleAccess postboxConsoleAccess(PostboxConsoleProperties properties) {
            return new SpringSecurityConsoleAccess(properties.getRole(), properties.getReadRole());
        }
    }

    /** Without Spring Security: no authenticated user, so no writes, and reads only with allow-anonymous. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnMissingClass("org.springframework.security.core.context.SecurityContextHolder")
    static class ServletAccess {
        @Bean
        @ConditionalOnMissingBean
        ConsoleAccess postboxConsoleAccess() {
            return new ServletConsoleAccess();
        }
    }

    /**
     * The webhook pages, when postbox-delivery-http is configured: they steer the endpoints through the
     * starter's {@link WebhookEndpointAdmin}, as the actuator endpoint does.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnBean(WebhookEndpointAdmin.class)
    static class Webhooks {
        @Bean
        WebhooksController postboxConsoleWebhooks(
                WebhookEndpointAdmin endpoints, ConsoleDatabase database, ConsoleViews views, ConsoleActions actions) {
            return new WebhooksController(endpoints, new EndpointStatsStore(database), views, actions);
        }
    }
}
