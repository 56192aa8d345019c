package dev.postbox.http.signing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import org.junit.jupiter.api.Test;

class WebhookSigningTest {

    // The Standard Webhooks reference vector, from the specification repository's own Java library test
    // (standard-webhooks/standard-webhooks, libraries/java, WebhookTest.verifyWebhookSignWorks).
    static final String SPEC_SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    static final String SPEC_ID = "msg_p5jXN8AQM9LWM0D4loKWxJek";
    static final long SPEC_TIMESTAMP = 1614265330L;
    static final byte[] SPEC_BODY = "{\"test\": 2432232314}".getBytes(StandardCharsets.UTF_8);
    static final String SPEC_SIGNATURE = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=";

    @Test
    void signsTheSpecificationVector() {
        WebhookSigner signer = WebhookSigner.of(WebhookSecret.parse(SPEC_SECRET));

        assertThat(signer.sign(SPEC_ID, SPEC_TIMESTAMP, SPEC_BODY)).isEqualTo(SPEC_SIGNATURE);
    }

    @Test
    void signsOncePerActiveSecretSeparatedBySpacesDuringRotation() {
        WebhookSecret current = WebhookSecret.parse(SPEC_SECRET);
        WebhookSecret next = WebhookSecret.generate();

        String header = WebhookSigner.of(current, next).sign(SPEC_ID, SPEC_TIMESTAMP, SPEC_BODY);

        String[] entries = header.split(" ");
        assertThat(entries).hasSize(2);
        assertThat(entries[0]).isEqualTo(SPEC_SIGNATURE);
        assertThat(entries[1]).isEqualTo(WebhookSigner.of(next).sign(SPEC_ID, SPEC_TIMESTAMP, SPEC_BODY));
        assertThat(entries[1]).startsWith("v1,").isNotEqualTo(SPEC_SIGNATURE);
    }

    @Test
    void refusesMessageIdsContainingTheDelimiter() {
        WebhookSigner signer = WebhookSigner.of(WebhookSecret.generate());

        assertThatThrownBy(() -> signer.sign("msg.1", 1, new byte[0]))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("messageId may not contain '.'");
    }

    @Test
    void refusesAnEmptySecretList() {
        assertThatThrownBy(() -> WebhookSigner.of(java.util.List.of()))
                .hasMessageContaining("secrets may not be empty");
    }

    @Test
    void secretRoundTripsThroughItsSerializedForm() {
        WebhookSecret secret = WebhookSecret.parse(SPEC_SECRET);

        assertThat(secret.serialized()).isEqualTo(SPEC_SECRET);
        assertThat(secret.keyLength()).isEqualTo(24);
        assertThat(WebhookSecret.parse(secret.serialized())).isEqualTo(secret);
        WebhookSecret generated = WebhookSecret.generate();
        assertThat(WebhookSecret.parse(generated.serialized())).isEqualTo(generated);
        assertThat(generated).isNotEqualTo(WebhookSecret.generate());
    }

    @Test
    void toStringNeverRevealsTheKey() {
        WebhookSecret secret = WebhookSecret.parse(SPEC_SECRET);

        assertThat(secret.toString())
                .doesNotContain("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
                .contains("redacted");
        assertThat(WebhookSigner.of(secret).toString()).doesNotContain("MfKQ9r8G");
    }

    @Test
    void rejectsAMissingPrefixWithoutEchoingTheSecret() {
        assertThatThrownBy(() -> WebhookSecret.parse("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("must start with 'whsec_'")
                .message()
                .doesNotContain("MfKQ9r8G");
    }

    @Test
    void rejectsInvalidBase64() {
        assertThatThrownBy(() -> WebhookSecret.parse("whsec_not base64!!"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not valid base64");
    }

    @Test
    void rejectsKeysOfTheWrongSize() {
        String tooShort = "whsec_" + Base64.getEncoder().encodeToString(new byte[16]);
        String tooLong = "whsec_" + Base64.getEncoder().encodeToString(new byte[65]);

        assertThatThrownBy(() -> WebhookSecret.parse(tooShort)).hasMessageContaining("between 24 and 64 bytes, got 16");
        assertThatThrownBy(() -> WebhookSecret.parse(tooLong)).hasMessageContaining("got 65");
        assertThatThrownBy(() -> WebhookSecret.parse(" ")).hasMessageContaining("may not be null or blank");
        assertThatThrownBy(() -> WebhookSecret.parse(null)).hasMessageContaining("may not be null or blank");
    }
}
