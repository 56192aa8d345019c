package dev.postbox.spring;

import dev.postbox.HandlerRegistration;
import dev.postbox.Jackson2JsonCodec;
import dev.postbox.Jackson3JsonCodec;
import dev.postbox.JsonCodec;
import dev.postbox.Outbox;
import dev.postbox.Postbox;
import dev.postbox.PostboxAdmin;
import dev.postbox.PostboxConfig;
import dev.postbox.PostboxInstrumentation;
import dev.postbox.PostboxListener;
import dev.postbox.PostboxModule;
import dev.postbox.TenantResolver;
import dev.postbox.spring.internal.AnnotatedBeanVerifier;
import dev.postbox.spring.internal.AutoProxyRegistrar;
import dev.postbox.spring.internal.BuiltInSchemaMigrator;
import dev.postbox.spring.internal.CompositePostboxListener;
import dev.postbox.spring.internal.EmbeddedDatabases;
import dev.postbox.spring.internal.EnqueueAdvisor;
import dev.postbox.spring.internal.EnqueueMethodInterceptor;
import dev.postbox.spring.internal.FlywaySchemaMigrator;
import dev.postbox.spring.internal.HandlerMethod;
import dev.postbox.spring.internal.HandlerMethodRegistry;
import dev.postbox.spring.internal.HandlerMethodScanner;
import dev.postbox.spring.internal.HandlerRegistrations;
import dev.postbox.spring.internal.OutboxEventBridge;
import dev.postbox.spring.internal.PoolSizeCheck;
import dev.postbox.spring.internal.PostboxConfigFactory;
import dev.postbox.spring.internal.PostboxDatabase;
import dev.postbox.spring.internal.PostboxStarterRuntimeHints;
import dev.postbox.spring.internal.PostboxWorkerLifecycle;
import dev.postbox.spring.internal.SchemaMigrator;
import dev.postbox.spring.internal.ServiceConnectionDatabases;
import dev.postbox.spring.internal.TracingSetupCheck;
import dev.postbox.spring.internal.VirtualThreads;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingClass;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.sql.init.dependency.DatabaseInitializationDependencyConfigurer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.ImportRuntimeHints;
import org.springframework.context.annotation.Role;
import org.springframework.context.annotation.Scope;
import org.springframework.core.env.Environment;
import org.springframework.transaction.PlatformTransactionManager;

/**
 * Auto-configuration of Postbox on the application's {@code DataSource} (with several, the one named
 * by {@code postbox.datasource} or marked {@link PostboxDataSource}): the {@link Postbox} engine
 * (from the prototype {@code Postbox.Builder} bean), its {@link Outbox} and {@link PostboxAdmin}, the
 * schema initializer, the worker lifecycle, {@link Enqueue} methods, {@link OutboxEvent} events and
 * {@link OutboxHandler} methods. Every bean backs off when the application declares its own; {@code
 * postbox.enabled=false} turns it all off; without a {@code DataSource} nothing is configured.
 *
 * <p>Metrics, health and the actuator endpoint live in their own auto-configurations. Every {@link
 * PostboxListener} bean receives the engine's events.
 */
@AutoConfiguration(
        afterName = {
            "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
            "org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration",
            "org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration",
            "org.springframework.boot.flyway.autoconfigure.FlywayAutoConfiguration",
            "org.springframework.boot.liquibase.autoconfigure.LiquibaseAutoConfiguration",
            "org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration",
            "org.springframework.boot.autoconfigure.aop.AopAutoConfiguration",
            // Spring Boot 3.5 (unknown names are ignored, so one list serves both lines)
            "org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration",
            "org.springframework.boot.autoconfigure.jdbc.DataSourceTransactionManagerAutoConfiguration",
            "org.springframework.boot.autoconfigure.transaction.TransactionAutoConfiguration",
            "org.springframework.boot.autoconfigure.flyway.FlywayAutoConfiguration",
            "org.springframework.boot.autoconfigure.liquibase.LiquibaseAutoConfiguration",
            "org.springframework.boot.autoconfigure.jackson.JacksonAutoConfiguration"
        })
@ConditionalOnBean(DataSource.class)
@ConditionalOnBooleanProperty(name = "postbox.enabled", matchIfMissing = true)
@EnableConfigurationProperties(PostboxProperties.class)
// The Postbox bean waits for every database initializer (Flyway, Liquibase, Postbox's own) in any context.
@Import({AutoProxyRegistrar.class, DatabaseInitializationDependencyConfigurer.class})
@ImportRuntimeHints(PostboxStarterRuntimeHints.class)
public final class PostboxAutoConfiguration {

    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(PostboxAutoConfiguration.class);

    /**
     * Payloads as JSON with the application's Jackson 3 {@code JsonMapper} bean when it has one
     * (Spring Boot 4 configures it), else a default Jackson 3 mapper.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = Jackson3JsonCodec.MAPPER_CLASS)
    static final class Jackson3Codec {

        @Bean
        @ConditionalOnMissingBean
        JsonCodec postboxJsonCodec(ObjectProvider<tools.jackson.databind.json.JsonMapper> jsonMapper) {
            tools.jackson.databind.json.JsonMapper mapper = jsonMapper.getIfUnique();
            return mapper != null ? Jackson3JsonCodec.of(mapper) : Jackson3JsonCodec.ofDefaults();
        }
    }

    /**
     * Without Jackson 3: payloads as JSON with the application's Jackson 2 {@code ObjectMapper} bean
     * when it has one, else a default Jackson 2 mapper.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnMissingClass(Jackson3JsonCodec.MAPPER_CLASS)
    @ConditionalOnClass(name = Jackson2JsonCodec.MAPPER_CLASS)
    static final class Jackson2Codec {

        @Bean
        @ConditionalOnMissingBean
        JsonCodec postboxJsonCodec(ObjectProvider<com.fasterxml.jackson.databind.ObjectMapper> objectMapper) {
            com.fasterxml.jackson.databind.ObjectMapper mapper = objectMapper.getIfUnique();
            return mapper != null ? Jackson2JsonCodec.of(mapper) : Jackson2JsonCodec.ofDefaults();
        }
    }

    /**
     * Postbox's {@code DataSource} and transaction manager: {@code postbox.datasource} / {@code
     * postbox.transaction-manager}, the {@link PostboxDataSource @PostboxDataSource} beans, or the
     * only (or primary) ones.
     */
    @Bean
    @ConditionalOnMissingBean
    PostboxDatabase postboxDatabase(
            ListableBeanFactory beanFactory,
            PostboxProperties properties,
            @PostboxDataSource ObjectProvider<DataSource> postboxDataSource,
            ObjectProvider<DataSource> dataSources,
            @PostboxDataSource ObjectProvider<PlatformTransactionManager> postboxTransactionManager,
            ObjectProvider<PlatformTransactionManager> transactionManagers) {
        PostboxDatabase chosen = PostboxDatabase.resolve(
                beanFactory,
                new PostboxDatabase.Choice(
                        properties.getDatasource(),
                        postboxDataSource,
                        dataSources,
                        properties.getTransactionManager(),
                        postboxTransactionManager,
                        transactionManagers));
        // The one place where the starter applies postbox.schema.name: every Postbox bean works on this DataSource.
        return chosen.in(properties.getSchema().postboxSchema());
    }

    /** One line at start-up when a tracing bridge is present but no tracer was configured (see {@link TracingSetupCheck}). */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "io.micrometer.tracing.Tracer")
    static final class TracingSetup {

        @Bean
        TracingSetupCheck postboxTracingSetupCheck(
                ObjectProvider<io.micrometer.tracing.Tracer> tracers, Environment environment) {
            return new TracingSetupCheck(tracers, environment);
        }
    }

    /** With Flyway in the application, Postbox's migrations run through a Flyway of their own. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.flywaydb.core.Flyway")
    static final class FlywayMigrations {

        @Bean
        @ConditionalOnMissingBean(SchemaMigrator.class)
        @ConditionalOnBean(type = "org.flywaydb.core.Flyway")
        SchemaMigrator postboxFlywaySchemaMigrator(ObjectProvider<org.flywaydb.core.Flyway> flyway) {
            return new FlywaySchemaMigrator(flyway.orderedStream().findFirst().orElseThrow());
        }
    }

    @Bean
    @ConditionalOnMissingBean(SchemaMigrator.class)
    SchemaMigrator postboxSchemaMigrator() {
        return new BuiltInSchemaMigrator();
    }

    @Bean
    @ConditionalOnMissingBean
    PostboxSchemaInitializer postboxSchemaInitializer(
            PostboxDatabase database,
            PostboxProperties properties,
            SchemaMigrator migrator,
            ListableBeanFactory beanFactory) {
        return new PostboxSchemaInitializer(
                database.dataSource(),
                properties.getSchema().getInitialize(),
                migrator,
                ds -> EmbeddedDatabases.isEmbedded(ds) || ServiceConnectionDatabases.isContainer(ds, beanFactory));
    }

    @Bean
    @ConditionalOnMissingBean
    HandlerMethodRegistry postboxHandlerMethods(ConfigurableListableBeanFactory beanFactory) {
        return new HandlerMethodRegistry(HandlerMethodScanner.scan(beanFactory));
    }

    /**
     * A new engine builder on Postbox's {@code DataSource} for each injection point, with everything
     * the starter wires: settings from {@code postbox.*} and {@link PostboxCustomizer}s, the codec,
     * the listeners, the {@link PostboxInstrumentation} bean (observations), the {@link TenantResolver}
     * bean (the tenant of jobs enqueued without one), the transaction manager, {@link HandlerRegistration} beans, {@link
     * OutboxHandler @OutboxHandler} methods and {@link PostboxModule} beans (such as the HTTP delivery module). Declare your own {@link Postbox} bean from it to keep
     * that wiring: {@code @Bean Postbox postbox(Postbox.Builder builder) { return builder.build(); }}.
     */
    @Bean
    @Scope(ConfigurableBeanFactory.SCOPE_PROTOTYPE)
    @ConditionalOnMissingBean
    Postbox.Builder postboxBuilder(
            PostboxDatabase database,
            PostboxProperties properties,
            JsonCodec codec,
            HandlerMethodRegistry handlerMethods,
            ObjectProvider<HandlerRegistration> handlerRegistrations,
            ObjectProvider<PostboxListener> listeners,
            ObjectProvider<PostboxInstrumentation> instrumentation,
            ObjectProvider<PostboxCustomizer> customizers,
            ObjectProvider<PostboxModule> modules,
            ObjectProvider<TenantResolver> tenantResolver,
            ConfigurableListableBeanFactory beanFactory,
            Environment environment) {
        PostboxConfig.Builder config =
                PostboxConfigFactory.builder(properties, VirtualThreads.factoryIfEnabled(environment));
        if (!Binder.get(environment)
                .bind("postbox.worker.concurrency", Integer.class)
                .isBound()) {
            // A default application (Hikari's 10 connections) runs fewer handlers instead of warning.
            config.concurrency(PoolSizeCheck.fittedConcurrency(
                    database.dataSource(), properties.getWorker().getConcurrency(), log));
        }
        List<PostboxCustomizer> orderedCustomizers = customizers.orderedStream().toList();
        orderedCustomizers.forEach(c -> c.customizeConfig(config));

        Postbox.Builder builder = Postbox.builder(database.dataSource())
                .config(config.build())
                .codec(codec)
                .listener(new CompositePostboxListener(
                        () -> listeners.orderedStream().toList()));
        instrumentation.ifUnique(builder::instrumentation);
        tenantResolver.ifUnique(builder::tenantResolver);
        if (database.transactionManager() != null) {
            builder.transactionManager(database.transactionManager());
        }
        Map<String, HandlerMethod> methods = handlerMethods.byKind();
        for (HandlerRegistration registration :
                handlerRegistrations.orderedStream().toList()) {
            HandlerMethod clash = methods.get(registration.kind());
            if (clash != null) {
                throw new IllegalStateException("Job kind '" + registration.kind() + "' has two handlers: "
                        + clash.describe() + " and a HandlerRegistration bean. Each kind has exactly one handler.");
            }
            builder.handler(registration);
        }
        HandlerRegistrations.of(methods, properties, beanFactory).forEach(builder::handler);
        modules.orderedStream().forEach(builder::module);
        orderedCustomizers.forEach(c -> c.customizePostbox(builder));
        return builder;
    }

    @Bean
    @ConditionalOnMissingBean
    Postbox postbox(Postbox.Builder postboxBuilder) {
        return postboxBuilder.build();
    }

    @Bean
    @ConditionalOnMissingBean
    Outbox postboxOutbox(Postbox postbox) {
        return postbox.outbox();
    }

    @Bean
    @ConditionalOnMissingBean
    PostboxAdmin postboxAdmin(Postbox postbox) {
        return postbox.admin();
    }

    /** Runs jobs in this process; {@code postbox.worker.enabled=false} for enqueue-only applications. */
    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBooleanProperty(name = "postbox.worker.enabled", matchIfMissing = true)
    PostboxWorkerLifecycle postboxWorkerLifecycle(Postbox postbox, PostboxDatabase database) {
        return new PostboxWorkerLifecycle(postbox, database.dataSource());
    }

    @Bean
    @ConditionalOnMissingBean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    static EnqueueMethodInterceptor postboxEnqueueMethodInterceptor(
            ObjectProvider<Postbox> postbox, ConfigurableListableBeanFactory beanFactory) {
        return new EnqueueMethodInterceptor(postbox, beanFactory);
    }

    @Bean
    @ConditionalOnMissingBean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    static EnqueueAdvisor postboxEnqueueAdvisor(EnqueueMethodInterceptor postboxEnqueueMethodInterceptor) {
        return new EnqueueAdvisor(postboxEnqueueMethodInterceptor);
    }

    @Bean
    @ConditionalOnMissingBean
    static OutboxEventBridge postboxOutboxEventBridge(
            ObjectProvider<Postbox> postbox, ConfigurableListableBeanFactory beanFactory) {
        return new OutboxEventBridge(postbox, beanFactory);
    }

    @Bean
    @ConditionalOnMissingBean
    static AnnotatedBeanVerifier postboxAnnotatedBeanVerifier(
            ConfigurableListableBeanFactory beanFactory,
            ObjectProvider<HandlerMethodRegistry> handlerMethods,
            ObjectProvider<EnqueueMethodInterceptor> enqueueInterceptor,
            ObjectProvider<Postbox> postbox) {
        return new AnnotatedBeanVerifier(beanFactory, handlerMethods, enqueueInterceptor, postbox);
    }
}
