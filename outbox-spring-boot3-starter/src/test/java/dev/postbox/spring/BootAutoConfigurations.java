package dev.postbox.spring;

/**
 * Spring Boot's own auto-configurations (and types) that the shared tests of the starter need, for
 * Spring Boot 3.5: Spring Boot 4 moved them to per-technology packages, so each line's test sources
 * have their own copy of this class and the shared tests name only its constants.
 */
public final class BootAutoConfigurations {

    public static final Class<?> DATA_SOURCE =
            org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration.class;
    public static final Class<?> DATA_SOURCE_TRANSACTION_MANAGER =
            org.springframework.boot.autoconfigure.jdbc.DataSourceTransactionManagerAutoConfiguration.class;
    public static final Class<?> TRANSACTION =
            org.springframework.boot.autoconfigure.transaction.TransactionAutoConfiguration.class;
    public static final Class<?> FLYWAY = org.springframework.boot.autoconfigure.flyway.FlywayAutoConfiguration.class;
    public static final Class<?> LIQUIBASE =
            org.springframework.boot.autoconfigure.liquibase.LiquibaseAutoConfiguration.class;
    public static final Class<?> METRICS =
            org.springframework.boot.actuate.autoconfigure.metrics.MetricsAutoConfiguration.class;
    public static final Class<?> COMPOSITE_METER_REGISTRY =
            org.springframework.boot.actuate.autoconfigure.metrics.CompositeMeterRegistryAutoConfiguration.class;
    public static final Class<?> SIMPLE_METRICS_EXPORT = org.springframework.boot.actuate.autoconfigure.metrics.export
            .simple.SimpleMetricsExportAutoConfiguration.class;

    /** The type of the JDBC connection details bean ({@code JdbcConnectionDetails}). */
    public static final Class<?> JDBC_CONNECTION_DETAILS =
            org.springframework.boot.autoconfigure.jdbc.JdbcConnectionDetails.class;

    /** Boot's auto-configuration of the OpenTelemetry tracer (excluded to play an application without it). */
    public static final String TRACER_AUTO_CONFIGURATION =
            "org.springframework.boot.actuate.autoconfigure.tracing.OpenTelemetryTracingAutoConfiguration";

    /** What docs/tracing.md (and Postbox's start-up hint) says to add for a tracer on this line. */
    public static final String TRACING_DEPENDENCY = "org.springframework.boot:spring-boot-starter-actuator";

    private BootAutoConfigurations() {}
}
