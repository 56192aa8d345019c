package dev.postbox.spring.internal;

import io.micrometer.tracing.Tracer;
import java.util.Optional;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.core.env.Environment;
import org.springframework.util.ClassUtils;

/**
 * Says at start-up, in one line, what the application lacks when a Micrometer tracing bridge is on
 * the class path but no tracer was configured: Postbox then stores no trace context with jobs and
 * webhooks leave without {@code traceparent}, silently. On Spring Boot 4 this is what happens with
 * the bridge alone, because Boot 4 moved tracing's auto-configuration out of the actuator into
 * modules of its own; on Spring Boot 3.5 the actuator is missing.
 */
public final class TracingSetupCheck implements SmartInitializingSingleton {

    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(TracingSetupCheck.class);

    private static final ClassLoader LOADER = TracingSetupCheck.class.getClassLoader();

    private final ObjectProvider<Tracer> tracers;
    private final Environment environment;

    public TracingSetupCheck(ObjectProvider<Tracer> tracers, Environment environment) {
        this.tracers = tracers;
        this.environment = environment;
    }

    @Override
    public void afterSingletonsInstantiated() {
        hint().ifPresent(log::warn);
    }

    /** The line to log, when tracing is expected (a bridge is present, nothing turned it off) but no tracer exists. */
    Optional<String> hint() {
        if (!environment.getProperty("postbox.observations.enabled", Boolean.class, true)
                || !environment.getProperty("management.tracing.enabled", Boolean.class, true)) {
            return Optional.empty();
        }
        boolean otel = present("io.micrometer.tracing.otel.bridge.OtelTracer");
        boolean brave = present("io.micrometer.tracing.brave.bridge.BraveTracer");
        if ((!otel && !brave) || tracers.stream().anyMatch(tracer -> tracer != Tracer.NOOP)) {
            return Optional.empty();
        }
        String bridge = otel ? "micrometer-tracing-bridge-otel" : "micrometer-tracing-bridge-brave";
        String add = bootThree()
                ? "add org.springframework.boot:spring-boot-starter-actuator (Spring Boot 3.5 configures tracing in"
                        + " the actuator) and leave management.tracing.enabled on"
                : "add org.springframework.boot:spring-boot-micrometer-tracing-" + (otel ? "opentelemetry" : "brave")
                        + " (Spring Boot 4 configures tracing in that module, not in the actuator"
                        + (otel ? "; spring-boot-starter-opentelemetry brings it with an OTLP exporter" : "") + ")";
        return Optional.of("Postbox: " + bridge + " is on the class path but the application has no tracer, so jobs"
                + " store no trace context and webhooks leave without traceparent: " + add + ". See docs/tracing.md.");
    }

    /** Spring Boot 3 keeps the DataSource auto-configuration in spring-boot-autoconfigure; Boot 4 moved it. */
    private static boolean bootThree() {
        return present("org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration");
    }

    private static boolean present(String className) {
        return ClassUtils.isPresent(className, LOADER);
    }
}
