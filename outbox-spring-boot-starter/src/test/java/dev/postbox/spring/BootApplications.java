package dev.postbox.spring;

import com.zaxxer.hikari.HikariDataSource;
import dev.postbox.testing.TestDatabase;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Spring Boot applications started as a user starts theirs: {@code SpringApplication} with every
 * auto-configuration on the class path (Boot's own included), on a fresh database given by {@code
 * spring.datasource.url}, so the pool is Boot's Hikari pool with its defaults. Failures go through
 * Boot's failure analyzers, as in a real start-up. Flyway and Liquibase are on the test class path
 * for other tests: they are off unless a test turns them on.
 */
public final class BootApplications implements AutoCloseable {

    private final HikariDataSource database = TestDatabase.createEmpty();
    private final List<ConfigurableApplicationContext> started = new ArrayList<>();

    /** The fresh database (empty: no schema installed), for checks. */
    public HikariDataSource database() {
        return database;
    }

    /** Starts {@code application}; {@code properties} ({@code name=value}) override the defaults. */
    public ConfigurableApplicationContext start(Class<?> application, String... properties) {
        ConfigurableApplicationContext context = builder(application).run(args(properties));
        started.add(context);
        return context;
    }

    /** Starts {@code application} expecting start-up to fail; returns what {@code SpringApplication} threw. */
    public Throwable startFailure(Class<?> application, String... properties) {
        try {
            started.add(builder(application).run(args(properties)));
        } catch (RuntimeException e) {
            return e;
        }
        throw new AssertionError("the application started");
    }

    private SpringApplicationBuilder builder(Class<?> application) {
        Map<String, Object> defaults = new LinkedHashMap<>();
        defaults.put("spring.datasource.url", database.getJdbcUrl());
        defaults.put("spring.flyway.enabled", "false");
        defaults.put("spring.liquibase.enabled", "false");
        defaults.put("spring.main.banner-mode", "off");
        return new SpringApplicationBuilder(application)
                .web(WebApplicationType.NONE)
                .properties(defaults);
    }

    private static String[] args(String... properties) {
        return java.util.Arrays.stream(properties).map(p -> "--" + p).toArray(String[]::new);
    }

    @Override
    public void close() {
        started.forEach(ConfigurableApplicationContext::close);
        TestDatabase.drop(database);
    }
}
