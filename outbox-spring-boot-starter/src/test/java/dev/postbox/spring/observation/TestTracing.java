package dev.postbox.spring.observation;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.observation.DefaultMeterObservationHandler;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.tracing.Tracer;
import io.micrometer.tracing.handler.DefaultTracingObservationHandler;
import io.micrometer.tracing.handler.PropagatingReceiverTracingObservationHandler;
import io.micrometer.tracing.handler.PropagatingSenderTracingObservationHandler;
import io.micrometer.tracing.otel.bridge.OtelBaggageManager;
import io.micrometer.tracing.otel.bridge.OtelCurrentTraceContext;
import io.micrometer.tracing.otel.bridge.OtelPropagator;
import io.micrometer.tracing.otel.bridge.OtelTracer;
import io.opentelemetry.api.baggage.propagation.W3CBaggagePropagator;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.context.propagation.TextMapPropagator;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import io.opentelemetry.sdk.trace.samplers.Sampler;
import java.util.List;

/**
 * Tracing as an application with Micrometer Tracing on OpenTelemetry has it (W3C trace context and
 * baggage propagation, every span sampled), exporting to memory; plus a meter registry for the
 * observations' timers.
 */
final class TestTracing implements AutoCloseable {

    final InMemorySpanExporter spans = InMemorySpanExporter.create();
    final MeterRegistry meters = new SimpleMeterRegistry();
    final ObservationRegistry registry = ObservationRegistry.create();
    final Tracer tracer;
    private final SdkTracerProvider provider;

    TestTracing() {
        provider = SdkTracerProvider.builder()
                .setSampler(Sampler.alwaysOn())
                .addSpanProcessor(SimpleSpanProcessor.create(spans))
                .build();
        OpenTelemetrySdk otel = OpenTelemetrySdk.builder()
                .setTracerProvider(provider)
                .setPropagators(ContextPropagators.create(TextMapPropagator.composite(
                        W3CTraceContextPropagator.getInstance(), W3CBaggagePropagator.getInstance())))
                .build();
        io.opentelemetry.api.trace.Tracer otelTracer = otel.getTracer("postbox-test");
        OtelCurrentTraceContext current = new OtelCurrentTraceContext();
        tracer = new OtelTracer(
                otelTracer, current, event -> {}, new OtelBaggageManager(current, List.of("tenant"), List.of()));
        OtelPropagator propagator = new OtelPropagator(otel.getPropagators(), otelTracer);
        registry.observationConfig()
                .observationHandler(new DefaultMeterObservationHandler(meters))
                .observationHandler(new ObservationHandler.FirstMatchingCompositeObservationHandler(
                        new PropagatingSenderTracingObservationHandler<>(tracer, propagator),
                        new PropagatingReceiverTracingObservationHandler<>(tracer, propagator),
                        new DefaultTracingObservationHandler(tracer)));
    }

    @Override
    public void close() {
        provider.close();
    }
}
