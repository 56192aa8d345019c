package dev.postbox;

import dev.postbox.internal.AdminStore;
import dev.postbox.internal.Engine;
import dev.postbox.internal.JobWriter;
import dev.postbox.internal.LeaseStore;
import dev.postbox.internal.RetryPolicies;
import dev.postbox.internal.SharedRateLimits;
import dev.postbox.internal.WakeUps;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;

/**
 * The Postbox engine on one {@code DataSource}: the {@link Outbox} to write jobs, the relay that
 * claims and runs them ({@link #start()} / {@link #stop()}), and the {@link PostboxAdmin}.
 *
 * <pre>{@code
 * Postbox postbox = Postbox.builder(dataSource)
 *         .handler(HandlerRegistration.of("send-mail", job -> mailer.send(job.payload(Mail.class))))
 *         .handler(HandlerRegistration.of("reserve-stock", this::reserve).transactional())
 *         .module(http)   // a delivery module: its handlers, installed once the engine is built
 *         .config(PostboxConfig.custom().concurrency(8).build())
 *         .build();
 * postbox.start();
 * }</pre>
 */
public final class Postbox implements AutoCloseable {

    private final PostboxConfig config;
    private final Outbox outbox;
    private final PostboxAdmin admin;
    private final Engine engine;
    private final Set<String> handlerKinds;

    private Postbox(Builder b) {
        this.config = b.config;
        JsonCodec codec = b.codec != null ? b.codec : JsonCodec.jackson();
        Map<String, HandlerRegistration> handlers = Map.copyOf(b.handlers);
        Map<String, BatchHandlerRegistration> batchHandlers = Map.copyOf(b.batchHandlers);
        Set<String> kinds = new LinkedHashSet<>(handlers.keySet());
        kinds.addAll(batchHandlers.keySet());
        this.handlerKinds = Set.copyOf(kinds);
        RetryPolicies policies = new RetryPolicies(config.retryPolicy(), handlers, batchHandlers);
        JobWriter writer = new JobWriter(codec, config, policies::maxAttemptsFor);
        WakeUps wakeUps = new WakeUps(b.dataSource, config.notifyInterval(), config.pollInterval());
        this.outbox = new Outbox(
                b.dataSource,
                writer,
                config.transactionMode(),
                b.listener,
                wakeUps,
                b.instrumentation,
                b.tenantResolver);
        this.admin = new PostboxAdmin(b.dataSource, new AdminStore(), wakeUps);
        // The default manager on the application's DataSource itself: a transactional handler's own
        // statements run on the application's connection as it is, never qualified for Postbox's schema.
        PlatformTransactionManager tm = b.transactionManager != null
                ? b.transactionManager
                : new DataSourceTransactionManager(PostboxSchema.unqualified(b.dataSource));
        this.engine = new Engine(
                b.dataSource,
                tm,
                handlers,
                batchHandlers,
                codec,
                b.listener,
                b.instrumentation,
                config,
                policies,
                wakeUps);
        PostboxModule.Context context =
                new PostboxModule.Context(outbox, admin, config, new SharedRateLimits(b.dataSource));
        b.modules.forEach(module -> module.install(context));
    }

    public static Builder builder(DataSource dataSource) {
        return new Builder(dataSource);
    }

    /** Writes jobs in the caller's transaction. */
    public Outbox outbox() {
        return outbox;
    }

    /** Operations: job lookup, dead letters, pause, statistics. */
    public PostboxAdmin admin() {
        return admin;
    }

    public PostboxConfig config() {
        return config;
    }

    /** The job kinds this engine has a handler or a batch handler for. */
    public Set<String> handlerKinds() {
        return handlerKinds;
    }

    /** Starts claiming and running jobs of the configured queues. Idempotent. */
    public void start() {
        engine.start();
    }

    /**
     * Stops gracefully: no new claims, unstarted claims released without charging an attempt,
     * running jobs given {@link PostboxConfig#shutdownGrace()} to finish. Idempotent.
     */
    public void stop() {
        engine.stop();
    }

    public boolean isRunning() {
        return engine.isRunning();
    }

    /**
     * Handler threads stuck in attempts given up for their time limit: their handlers ignored the
     * interrupt and have not returned. While at most {@link PostboxConfig#stuckThreadLimit()} are
     * stuck each is replaced by a new worker thread (the engine keeps its concurrency); beyond, none
     * is and {@link #healthy()} is false.
     */
    public int stuckThreads() {
        return engine.stuckThreads();
    }

    /**
     * False while more handler threads are stuck than {@link PostboxConfig#stuckThreadLimit()}
     * tolerates: the process runs fewer jobs at once than configured and should be restarted (after
     * fixing the handler that ignores interrupts).
     */
    public boolean healthy() {
        return stuckThreads() <= config.stuckThreadLimit();
    }

    /**
     * Claims and runs due jobs in the calling thread until none is due; returns how many ran. Meant
     * for tests and tools, with the engine not started.
     */
    public int runDueJobs() {
        return engine.runDueJobs();
    }

    /**
     * Runs one rescue pass of expired leases now; returns {retried, dead, returned}: started
     * attempts charged and retried, jobs dead-lettered, and unstarted attempts returned without
     * charge. Meant for tests and tools.
     */
    public int[] rescueExpiredLeases() {
        LeaseStore.Rescued rescued = engine.rescueNow();
        return new int[] {rescued.retried(), rescued.dead(), rescued.returned()};
    }

    @Override
    public void close() {
        stop();
    }

    /** Builds a {@link Postbox}. */
    public static final class Builder {
        private final DataSource dataSource;
        private PostboxConfig config = PostboxConfig.ofDefaults();
        private @Nullable JsonCodec codec;
        private PostboxListener listener = PostboxListener.NO_OP;
        private PostboxInstrumentation instrumentation = PostboxInstrumentation.NO_OP;
        private @Nullable PlatformTransactionManager transactionManager;
        private final Map<String, HandlerRegistration> handlers = new LinkedHashMap<>();
        private final List<PostboxModule> modules = new ArrayList<>();
        private final Map<String, BatchHandlerRegistration> batchHandlers = new LinkedHashMap<>();
        private TenantResolver tenantResolver = TenantResolver.NONE;

        private Builder(DataSource dataSource) {
            this.dataSource = Require.notNull(dataSource, "dataSource");
        }

        /**
         * Supplies the tenant of jobs enqueued without one (e.g. from the current request); default
         * {@link TenantResolver#NONE}: such jobs belong to the default tenant.
         */
        public Builder tenantResolver(TenantResolver tenantResolver) {
            this.tenantResolver = Require.notNull(tenantResolver, "tenantResolver");
            return this;
        }

        public Builder config(PostboxConfig config) {
            this.config = Require.notNull(config, "config");
            return this;
        }

        public Builder codec(JsonCodec codec) {
            this.codec = Require.notNull(codec, "codec");
            return this;
        }

        public Builder listener(PostboxListener listener) {
            this.listener = Require.notNull(listener, "listener");
            return this;
        }

        /**
         * Wraps each enqueue call and handler attempt (tracing, timing); default {@link
         * PostboxInstrumentation#NO_OP}.
         */
        public Builder instrumentation(PostboxInstrumentation instrumentation) {
            this.instrumentation = Require.notNull(instrumentation, "instrumentation");
            return this;
        }

        /**
         * The transaction manager for transactional handlers; by default a {@code
         * DataSourceTransactionManager} on the engine's {@code DataSource}. Pass your application's
         * (e.g. JPA) manager so that handler writes through it join the completing transaction.
         */
        public Builder transactionManager(PlatformTransactionManager transactionManager) {
            this.transactionManager = Require.notNull(transactionManager, "transactionManager");
            return this;
        }

        public Builder handler(HandlerRegistration registration) {
            Require.notNull(registration, "registration");
            requireNewKind(registration.kind());
            handlers.put(registration.kind(), registration);
            return this;
        }

        /**
         * Registers a handler that takes claimed jobs of its kind in batches ({@link BatchJobHandler}).
         *
         * @throws IllegalArgumentException if the kind has a handler or a batch handler already
         */
        public Builder batchHandler(BatchHandlerRegistration registration) {
            Require.notNull(registration, "registration");
            requireNewKind(registration.kind());
            batchHandlers.put(registration.kind(), registration);
            return this;
        }

        private void requireNewKind(String kind) {
            if (handlers.containsKey(kind) || batchHandlers.containsKey(kind)) {
                throw new IllegalArgumentException("A handler for kind '" + kind
                        + "' is already registered: each kind has exactly one handler (plain or batch)");
            }
        }

        public Builder handler(String kind, JobHandler handler) {
            return handler(HandlerRegistration.of(kind, handler));
        }

        /**
         * Adds a module: registers its handlers and batch handlers now, and {@link PostboxModule#install installs} it
         * with the engine's outbox and admin when {@link #build()} has built the engine.
         */
        public Builder module(PostboxModule module) {
            Require.notNull(module, "module");
            List<HandlerRegistration> registrations = Require.notNull(module.handlers(), "module.handlers()");
            List<BatchHandlerRegistration> batches = Require.notNull(module.batchHandlers(), "module.batchHandlers()");
            registrations.forEach(this::handler);
            batches.forEach(this::batchHandler);
            modules.add(module);
            return this;
        }

        public Postbox build() {
            return new Postbox(this);
        }
    }
}
