package dev.postbox;

import java.util.List;

/**
 * A delivery or extension that plugs into an engine through one hook: {@link Postbox.Builder#module}
 * registers its {@link #handlers()} and {@link #batchHandlers()}, and once the engine is built it is {@link #install installed}
 * with what it may use of the engine (its outbox, admin and shared rate limits). The module is built first and knows
 * nothing of the engine until then, so neither needs the other at build time.
 *
 * <pre>{@code
 * HttpDeliveryModule http = HttpDeliveryModule.builder(dataSource).build();
 * Postbox postbox = Postbox.builder(dataSource).module(http).build();   // installs http
 * http.webhooks().send("billing", event, key);                        // in a transaction
 * }</pre>
 */
public interface PostboxModule {

    /** The handlers this module contributes (each kind has exactly one handler per engine). */
    List<HandlerRegistration> handlers();

    /**
     * The batch handlers this module contributes (a broker relay that sends claimed jobs together).
     * The default is none.
     */
    default List<BatchHandlerRegistration> batchHandlers() {
        return List.of();
    }

    /**
     * Called once, when the engine the module was added to is built (before it starts). The default
     * does nothing: a module that only contributes handlers needs no more.
     */
    default void install(Context context) {}

    /**
     * What an installed module may use of its engine.
     *
     * @param outbox writes jobs in the caller's transaction
     * @param admin job lookup, dead letters, pause
     * @param config the engine's configuration
     * @param rateLimits token buckets shared by every process of the installation
     */
    record Context(Outbox outbox, PostboxAdmin admin, PostboxConfig config, RateLimits rateLimits) {

        public Context {
            Require.notNull(outbox, "outbox");
            Require.notNull(admin, "admin");
            Require.notNull(config, "config");
            Require.notNull(rateLimits, "rateLimits");
        }
    }
}
