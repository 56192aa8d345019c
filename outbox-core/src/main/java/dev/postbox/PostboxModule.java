package dev.postbox;

import dev.postbox.internal.Require;
import java.util.List;

/**
 * A delivery or extension that plugs into an engine through one hook: {@link Postbox.Builder#module}
 * registers its {@link #handlers()}, and once the engine is built it is {@link #install installed}
 * with what it may use of the engine (its outbox and admin). The module is built first and knows
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
     */
    record Context(Outbox outbox, PostboxAdmin admin, PostboxConfig config) {

        public Context {
            Require.notNull(outbox, "outbox");
            Require.notNull(admin, "admin");
            Require.notNull(config, "config");
        }
    }
}
