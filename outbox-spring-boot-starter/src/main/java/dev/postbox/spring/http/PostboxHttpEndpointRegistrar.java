package dev.postbox.spring.http;

import dev.postbox.http.EndpointTimeouts;
import dev.postbox.http.RedactedUrl;
import dev.postbox.http.ssrf.ForbiddenDestinationException;
import dev.postbox.http.webhook.Endpoint;
import dev.postbox.http.webhook.EndpointRegistry;
import dev.postbox.spring.internal.StartupRetry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;
import org.springframework.core.env.Environment;

/**
 * Registers (or updates, keeping their enabled/disabled state) the endpoints declared under {@code
 * postbox.http.endpoints.<name>.*}. It runs as a {@link SmartLifecycle} in phase {@value #PHASE}:
 * after the web server started (so a URL may use {@code ${local.server.port}}) and before the
 * Postbox worker (phase {@code DEFAULT_PHASE}) claims deliveries. An invalid endpoint (a URL the SSRF
 * guard refuses, a malformed secret) fails start-up with a message naming the property; secrets,
 * URL credentials and query strings are never part of it.
 *
 * <p>Each endpoint is written with {@link EndpointRegistry#put}, one atomic upsert: instances that
 * start together all start. When they declare different definitions of one endpoint (a rolling
 * deploy changing its URL), each start writes its own and the last instance to start wins; the
 * registry logs what changed (field names, never values).
 */
public class PostboxHttpEndpointRegistrar implements SmartLifecycle {

    /** After the web server (DEFAULT_PHASE - 2048), before the Postbox worker (DEFAULT_PHASE). */
    public static final int PHASE = DEFAULT_PHASE - 512;

    private static final Logger log = LoggerFactory.getLogger(PostboxHttpEndpointRegistrar.class);

    private final EndpointRegistry registry;
    private final PostboxHttpProperties properties;
    private final Environment environment;
    private volatile boolean running;

    public PostboxHttpEndpointRegistrar(
            EndpointRegistry registry, PostboxHttpProperties properties, Environment environment) {
        this.registry = registry;
        this.properties = properties;
        this.environment = environment;
    }

    @Override
    public void start() {
        if (running) {
            return;
        }
        List<String> names = new ArrayList<>();
        for (Map.Entry<String, PostboxHttpProperties.EndpointProperties> e :
                properties.getEndpoints().entrySet()) {
            Endpoint endpoint = endpoint(e.getKey(), e.getValue());
            try {
                StartupRetry.run("endpoint registration", () -> registry.put(endpoint));
            } catch (ForbiddenDestinationException ex) {
                // The guard's message shows the URL without credentials or query, and names the fix.
                throw new IllegalStateException(prefix(e.getKey()) + "url refused: " + ex.getMessage(), ex);
            } catch (IllegalArgumentException | IllegalStateException ex) {
                // Invalid values, or secrets that cannot be stored (no encryption key): name the endpoint.
                throw new IllegalStateException(prefix(e.getKey()) + ex.getMessage(), ex);
            }
            names.add(e.getKey());
        }
        if (!names.isEmpty()) {
            log.info("Webhook endpoints from postbox.http.endpoints registered or updated: {}", names);
        }
        running = true;
    }

    /** The endpoint declared under {@code postbox.http.endpoints.<name>}, validated. */
    Endpoint endpoint(String name, PostboxHttpProperties.EndpointProperties p) {
        String prefix = prefix(name);
        if (p.getUrl() == null || p.getUrl().isBlank()) {
            throw new IllegalStateException(prefix + "url is required");
        }
        if (p.getSecrets().isEmpty()) {
            throw new IllegalStateException(prefix + "secrets is required: at least one whsec_<base64> signing"
                    + " secret shared with the receiver (generate one with WebhookSecret.generate())");
        }
        String url;
        try {
            url = environment.resolveRequiredPlaceholders(p.getUrl());
        } catch (IllegalArgumentException ex) {
            // Spring's message quotes the whole value: show it redacted, and drop the cause that holds it.
            throw new IllegalStateException(
                    prefix + "url " + String.valueOf(ex.getMessage()).replace(p.getUrl(), RedactedUrl.of(p.getUrl())));
        }
        try {
            Endpoint.Builder b = Endpoint.builder(name, url);
            for (int i = 0; i < p.getSecrets().size(); i++) {
                try {
                    b.secret(p.getSecrets().get(i));
                } catch (IllegalArgumentException ex) {
                    // WebhookSecret never echoes the secret in its messages.
                    throw new IllegalArgumentException("secrets[" + i + "]: " + ex.getMessage(), ex);
                }
            }
            b.headers(p.getHeaders());
            b.description(p.getDescription());
            if (!p.getEventTypes().isEmpty()) {
                b.subscribe(p.getEventTypes().toArray(String[]::new));
            }
            if (p.getRatePerSecond() != null) {
                double rate = p.getRatePerSecond();
                b.rateLimit(rate, p.getBurst() != null ? p.getBurst() : (int) Math.max(1, Math.ceil(rate)));
            } else if (p.getBurst() != null) {
                throw new IllegalArgumentException("burst needs rate-per-second");
            }
            b.maxInFlight(p.getMaxInFlight());
            PostboxHttpProperties.EndpointTimeoutProperties t = p.getTimeouts();
            if (t.isSet()) {
                PostboxHttpProperties.Timeouts d = properties.getTimeouts();
                b.timeouts(new EndpointTimeouts(
                        or(t.getConnect(), d.getConnect()),
                        or(t.getRead(), d.getRead()),
                        or(t.getCall(), d.getCall())));
            }
            return b.build();
        } catch (IllegalArgumentException ex) {
            throw new IllegalStateException(prefix + ex.getMessage(), ex);
        }
    }

    private static Duration or(@Nullable Duration value, Duration fallback) {
        return value != null ? value : fallback;
    }

    private static String prefix(String name) {
        return "Webhook endpoint postbox.http.endpoints." + name + ": ";
    }

    @Override
    public void stop() {
        running = false;
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    @Override
    public int getPhase() {
        return PHASE;
    }
}
