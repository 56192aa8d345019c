package dev.postbox.http.signing;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.LongRange;
import net.jqwik.api.constraints.StringLength;

/**
 * {@link WebhookVerifier} under random input: whatever the headers and body, it either returns a
 * verified webhook or throws {@link WebhookVerificationException} (a 401), never anything else (a
 * 500); and what the signer signs within the tolerance always verifies.
 */
class WebhookVerifierPropertiesTest {

    private static final Instant NOW = Instant.parse("2026-12-01T05:00:00Z");
    private static final WebhookSecret SECRET = WebhookSecret.ofKey(new byte[32]);
    private static final WebhookVerifier VERIFIER = WebhookVerifier.builder()
            .secret(SECRET)
            .secret(WebhookSecret.generate())
            .clock(Clock.fixed(NOW, ZoneOffset.UTC))
            .build();

    @Provide
    Arbitrary<String> timestamps() {
        return Arbitraries.oneOf(
                Arbitraries.strings().withChars("0123456789").ofMinLength(0).ofMaxLength(25),
                Arbitraries.longs().map(l -> Long.toString(l)),
                Arbitraries.strings().ofMaxLength(30),
                Arbitraries.longs()
                        .between(NOW.getEpochSecond() - 600, NOW.getEpochSecond() + 600)
                        .map(l -> Long.toString(l)));
    }

    @Provide
    Arbitrary<String> signatures() {
        return Arbitraries.oneOf(
                Arbitraries.strings().ofMaxLength(200),
                Arbitraries.strings()
                        .withChars("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=")
                        .ofMaxLength(60)
                        .map(s -> "v1," + s),
                Arbitraries.strings().ofMaxLength(60).map(s -> "v1," + s + " v1a,xyz"));
    }

    @Property(tries = 3000)
    void randomRequestsAreVerifiedOrRejectedNeverAnythingElse(
            @ForAll @StringLength(max = 80) String id,
            @ForAll("timestamps") String timestamp,
            @ForAll("signatures") String signature,
            @ForAll byte[] body) {
        try {
            VerifiedWebhook verified = VERIFIER.verify(id, timestamp, signature, body);
            // Only a real signature passes; random ones cannot (2^-256).
            assertThat(signature)
                    .contains(WebhookSigner.of(SECRET)
                            .sign(verified.messageId(), verified.timestamp().getEpochSecond(), body)
                            .substring(0, 10));
        } catch (WebhookVerificationException e) {
            assertThat(e.reason()).isNotNull();
            assertThat(e.getMessage())
                    .doesNotContain(NOW.toString().substring(0, 10))
                    .doesNotContain(SECRET.serialized());
        }
    }

    @Property(tries = 1000)
    void whatTheSignerSignsWithinTheToleranceVerifies(
            @ForAll @StringLength(min = 1, max = 80) String rawId,
            @ForAll @LongRange(min = -299, max = 299) long skewSeconds,
            @ForAll byte[] body) {
        String id = rawId.replace('.', '_').strip();
        if (id.isEmpty()) {
            return;
        }
        long timestamp = NOW.getEpochSecond() + skewSeconds;
        String signature = WebhookSigner.of(SECRET).sign(id, timestamp, body);
        VerifiedWebhook verified = VERIFIER.verify(id, Long.toString(timestamp), signature, body);
        assertThat(verified.messageId()).isEqualTo(id);
        assertThat(verified.timestamp().getEpochSecond()).isEqualTo(timestamp);
    }
}
