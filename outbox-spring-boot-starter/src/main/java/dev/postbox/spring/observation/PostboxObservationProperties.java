package dev.postbox.spring.observation;

import org.springframework.boot.context.properties.ConfigurationProperties;

/** Observations of Postbox ({@code postbox.observations.*}). */
@ConfigurationProperties(prefix = "postbox.observations")
public class PostboxObservationProperties {

    /**
     * Whether enqueue, handler attempts and webhook sends are observed (timed and traced, with the
     * trace context carried from enqueue to handler to webhook) when the application has an
     * ObservationRegistry.
     */
    private boolean enabled = true;

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }
}
