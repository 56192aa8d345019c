package dev.postbox.spring.aot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.postbox.Job;
import dev.postbox.SchemaInstaller;
import dev.postbox.spring.Enqueue;
import dev.postbox.spring.OutboxEvent;
import dev.postbox.spring.OutboxHandler;
import dev.postbox.spring.PostboxAutoConfiguration;
import dev.postbox.spring.PostboxSchedule;
import dev.postbox.spring.internal.EnqueueMethodInterceptor;
import dev.postbox.spring.internal.PostboxStarterRuntimeHints;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.aot.AotDetector;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.aot.test.generate.TestGenerationContext;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.annotation.AnnotationConfigUtils;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.ImportRuntimeHints;
import org.springframework.context.annotation.ReflectiveScan;
import org.springframework.context.aot.ApplicationContextAotGenerator;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.test.tools.TestCompiler;
import org.springframework.javapoet.ClassName;

/**
 * GraalVM readiness, checked with Spring's AOT support (a native build is not possible here): the
 * hints Postbox registers cover what it loads as a resource or reaches by reflection, and an
 * application context with Postbox-annotated beans is processed ahead of time, compiled and started
 * from the generated code.
 */
class PostboxRuntimeHintsTest {

    public record Greeting(String text, Instant at) {}

    public record Receipt(long id) {}

    @OutboxEvent(kind = "greeted")
    public record Greeted(String text) {}

    public static class Greeter {
        @OutboxHandler("greet")
        public void greet(Greeting greeting, Job job) {}

        @PostboxSchedule(name = "tick", cron = "@hourly")
        public void tick() {}

        @Enqueue(kind = "greet", payload = "new dev.postbox.spring.aot.PostboxRuntimeHintsTest$Greeting(#p0, null)")
        public Receipt send(String text) {
            return new Receipt(1);
        }

        public void unannotated() {}
    }

    @Configuration(proxyBeanMethods = false)
    @ReflectiveScan("dev.postbox.spring.aot")
    public static class App {}

    /** Every registrar listed in the modules' META-INF/spring/aot.factories. */
    private static RuntimeHints fromAotFactories() {
        RuntimeHints hints = new RuntimeHints();
        ClassLoader classLoader = PostboxRuntimeHintsTest.class.getClassLoader();
        org.springframework.beans.factory.aot.AotServices.factories(classLoader)
                .load(RuntimeHintsRegistrar.class)
                .forEach(r -> r.registerHints(hints, classLoader));
        return hints;
    }

    @Test
    void theMigrationsTheChangeLogAndTheVersionResourceAreIncluded() {
        RuntimeHints hints = fromAotFactories();
        List<SchemaInstaller.Migration> migrations = SchemaInstaller.migrations();
        assertThat(migrations).isNotEmpty();
        for (SchemaInstaller.Migration m : migrations) {
            assertThat(RuntimeHintsPredicates.resource()
                            .forResource("db/postbox/" + m.resource().getFilename()))
                    .as(m.resource().getFilename())
                    .accepts(hints);
        }
        assertThat(RuntimeHintsPredicates.resource().forResource(SchemaInstaller.LIQUIBASE_CHANGELOG))
                .accepts(hints);
        assertThat(RuntimeHintsPredicates.resource().forResource("dev/postbox/http/version.properties"))
                .accepts(hints);
        assertThat(RuntimeHintsPredicates.resource().forResource("db/other/V1__x.sql"))
                .as("a control: not every resource")
                .rejects(hints);
    }

    @Test
    void theJacksonMappersTheCodecLooksUpByNameAreRegistered() {
        RuntimeHints hints = fromAotFactories();
        assertThat(RuntimeHintsPredicates.reflection().onType(tools.jackson.databind.json.JsonMapper.class))
                .accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection().onType(com.fasterxml.jackson.databind.json.JsonMapper.class))
                .accepts(hints);
    }

    @Test
    void theStartersRegistrarIsImportedAndCoversTheEnqueueExpressionRoot() {
        ImportRuntimeHints imported =
                AnnotatedElementUtils.findMergedAnnotation(PostboxAutoConfiguration.class, ImportRuntimeHints.class);
        assertThat(imported).isNotNull();
        assertThat(imported.value()).contains(PostboxStarterRuntimeHints.class);
        RuntimeHints hints = new RuntimeHints();
        new PostboxStarterRuntimeHints().registerHints(hints, getClass().getClassLoader());
        assertThat(RuntimeHintsPredicates.reflection()
                        .onMethodInvocation(EnqueueMethodInterceptor.EnqueueExpressionRoot.class, "result"))
                .accepts(hints);
    }

    @Test
    void aotProcessingRegistersHandlerInvocationAndPayloadBindingAndTheGeneratedContextStarts() {
        GenericApplicationContext context = new GenericApplicationContext();
        AnnotationConfigUtils.registerAnnotationConfigProcessors(context);
        context.registerBean("app", App.class);
        context.registerBean("greeter", Greeter.class);
        TestGenerationContext generation = new TestGenerationContext();

        ClassName initializer = new ApplicationContextAotGenerator().processAheadOfTime(context, generation);
        RuntimeHints hints = generation.getRuntimeHints();

        assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Greeter.class, "greet"))
                .as("@OutboxHandler methods are invoked reflectively")
                .accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Greeter.class, "tick"))
                .as("plain @PostboxSchedule methods too")
                .accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Greeting.class, "text"))
                .as("payloads are read by Jackson: binding hints")
                .accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection().onType(Receipt.class))
                .as("an @Enqueue method's result is the default payload")
                .accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Greeted.class, "text"))
                .as("@OutboxEvent classes found by @ReflectiveScan")
                .accepts(hints);
        assertThat(RuntimeHintsPredicates.resource().forResource("db/postbox/V1__jobs.sql"))
                .as("aot.factories registrars run in AOT processing")
                .accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Greeter.class, "unannotated"))
                .as("a control: not every method")
                .rejects(hints);

        generation.writeGeneratedContent();
        TestCompiler.forSystem().with(generation).compile(compiled -> {
            try (GenericApplicationContext fresh = new GenericApplicationContext()) {
                @SuppressWarnings("unchecked")
                ApplicationContextInitializer<GenericApplicationContext> init =
                        compiled.getInstance(ApplicationContextInitializer.class, initializer.toString());
                init.initialize(fresh);
                fresh.refresh();
                assertThat(fresh.getBean(Greeter.class)).isNotNull();
                assertThat(AotDetector.useGeneratedArtifacts()).isFalse();
            }
        });
    }
}
