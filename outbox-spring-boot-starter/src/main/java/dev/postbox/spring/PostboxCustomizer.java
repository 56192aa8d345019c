package dev.postbox.spring;

import dev.postbox.Postbox;
import dev.postbox.PostboxConfig;

/**
 * Adjusts what properties cannot express, before the {@link Postbox} bean is built. Declare beans of
 * this type; they are applied in {@code @Order}. Both methods default to doing nothing.
 *
 * <pre>{@code
 * @Bean
 * PostboxCustomizer postboxCustomizer() {
 *     return new PostboxCustomizer() {
 *         @Override
 *         public void customizeConfig(PostboxConfig.Builder config) {
 *             config.workerId("billing-" + hostname);
 *         }
 *     };
 * }
 * }</pre>
 */
public interface PostboxCustomizer {

    /** Called with the engine settings bound from {@code postbox.*} properties. */
    default void customizeConfig(PostboxConfig.Builder config) {}

    /**
     * Called with the engine builder after handlers, codec, listener and config are set: add handlers
     * programmatically, or replace the codec or transaction manager.
     */
    default void customizePostbox(Postbox.Builder postbox) {}
}
