package dev.postbox.spring.internal;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;

/**
 * When a broker relay's metrics are configured: Micrometer is on the class path and {@code
 * postbox.metrics.enabled} is not false. (Whether there is a unique {@code MeterRegistry} is decided
 * when the listener is built: {@code BrokerRelayMetrics.of}.) The class is named as a string, so the
 * condition reads without Micrometer.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@ConditionalOnClass(name = "io.micrometer.core.instrument.MeterRegistry")
@ConditionalOnBooleanProperty(name = "postbox.metrics.enabled", matchIfMissing = true)
public @interface ConditionalOnRelayMetrics {}
