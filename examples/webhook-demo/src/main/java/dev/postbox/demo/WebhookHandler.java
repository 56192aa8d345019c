package dev.postbox.demo;

import dev.postbox.Job;
import dev.postbox.spring.OutboxHandler;
import org.springframework.core.env.Environment;
import org.springframework.http.MediaType;
import org.springframework.stereotype.Component;
import org.springframework.web.client.RestClient;

/**
 * Delivers the order webhook to the receiver with the job's stable key as {@code Idempotency-Key}:
 * the same on every attempt, so the receiver applies it once however often it arrives. A non-2xx
 * answer fails the attempt and Postbox retries with backoff.
 *
 * <p>This local handler stands in for Postbox's HTTP delivery module (signing, SSRF guard, rate
 * limits), which will replace it.
 */
@Component
class WebhookHandler {

    static final String KIND = "order-webhook";

    private final RestClient http;
    private final Environment environment;

    WebhookHandler(RestClient.Builder http, Environment environment) {
        this.http = http.build();
        this.environment = environment;
    }

    @OutboxHandler(KIND)
    void deliver(OrderWebhook webhook, Job job) {
        String url = environment.resolveRequiredPlaceholders(environment.getRequiredProperty("demo.receiver-url"));
        http.post()
                .uri(url)
                .header("Idempotency-Key", job.stableKey())
                .contentType(MediaType.APPLICATION_JSON)
                .body(webhook)
                .retrieve()
                .toBodilessEntity();
    }
}
