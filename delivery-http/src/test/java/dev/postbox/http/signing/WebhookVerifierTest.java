package dev.postbox.http.signing;

import static dev.postbox.http.signing.WebhookSigningTest.SPEC_BODY;
import static dev.postbox.http.signing.WebhookSigningTest.SPEC_ID;
import static dev.postbox.http.signing.WebhookSigningTest.SPEC_SECRET;
import static dev.postbox.http.signing.WebhookSigningTest.SPEC_SIGNATURE;
import static dev.postbox.http.signing.WebhookSigningTest.SPEC_TIMESTAMP;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.postbox.http.signing.WebhookVerificationException.Reason;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Map;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;

class WebhookVerifierTest {

    private static final Instant SENT_AT = Instant.ofEpochSecond(SPEC_TIMESTAMP);
    private static final String TIMESTAMP = Long.toString(SPEC_TIMESTAMP);

    private final WebhookSecret specSecret = WebhookSecret.parse(SPEC_SECRET);

    private WebhookVerifier verifierAt(Instant now, WebhookSecret... secrets) {
        return WebhookVerifier.builder()
                .secrets(java.util.List.of(secrets))
                .clock(Clock.fixed(now, ZoneOffset.UTC))
                .build();
    }

    @Test
    void acceptsTheSpecificationVector() {
        VerifiedWebhook verified =
                verifierAt(SENT_AT, specSecret).verify(SPEC_ID, TIMESTAMP, SPEC_SIGNATURE, SPEC_BODY);

        assertThat(verified).isEqualTo(new VerifiedWebhook(SPEC_ID, SENT_AT));
    }

    @Test
    void readsHeadersCaseInsensitivelyFromAMap() {
        Map<String, String> headers =
                Map.of("Webhook-Id", SPEC_ID, "WEBHOOK-TIMESTAMP", TIMESTAMP, "webhook-signature", SPEC_SIGNATURE);

        assertThat(verifierAt(SENT_AT, specSecret).verify(headers, SPEC_BODY).messageId())
                .isEqualTo(SPEC_ID);
    }

    @Test
    void duringRotationAcceptsEitherSecretAndAnyMatchingSignature() {
        WebhookSecret oldSecret = specSecret;
        WebhookSecret newSecret = WebhookSecret.generate();
        WebhookVerifier rotating = verifierAt(SENT_AT, oldSecret, newSecret);
        String signedWithNew = WebhookSigner.of(newSecret).sign(SPEC_ID, SPEC_TIMESTAMP, SPEC_BODY);
        String signedWithBoth = WebhookSigner.of(oldSecret, newSecret).sign(SPEC_ID, SPEC_TIMESTAMP, SPEC_BODY);

        assertThat(rotating.verify(SPEC_ID, TIMESTAMP, SPEC_SIGNATURE, SPEC_BODY))
                .isNotNull();
        assertThat(rotating.verify(SPEC_ID, TIMESTAMP, signedWithNew, SPEC_BODY))
                .isNotNull();
        assertThat(rotating.verify(SPEC_ID, TIMESTAMP, signedWithBoth, SPEC_BODY))
                .isNotNull();
        // A receiver that only knows the new secret accepts the sender's two-signature header too.
        assertThat(verifierAt(SENT_AT, newSecret).verify(SPEC_ID, TIMESTAMP, signedWithBoth, SPEC_BODY))
                .isNotNull();
        // ...but not a header signed with the old secret alone.
        assertRejected(
                () -> verifierAt(SENT_AT, newSecret).verify(SPEC_ID, TIMESTAMP, SPEC_SIGNATURE, SPEC_BODY),
                Reason.NO_MATCHING_SIGNATURE);
    }

    @Test
    void rejectsATamperedBodyIdOrTimestamp() {
        WebhookVerifier verifier = verifierAt(SENT_AT, specSecret);
        byte[] tampered = "{\"test\": 2432232315}".getBytes(StandardCharsets.UTF_8);

        assertRejected(
                () -> verifier.verify(SPEC_ID, TIMESTAMP, SPEC_SIGNATURE, tampered), Reason.NO_MATCHING_SIGNATURE);
        assertRejected(
                () -> verifier.verify("msg_other", TIMESTAMP, SPEC_SIGNATURE, SPEC_BODY), Reason.NO_MATCHING_SIGNATURE);
        assertRejected(
                () -> verifier.verify(SPEC_ID, Long.toString(SPEC_TIMESTAMP + 1), SPEC_SIGNATURE, SPEC_BODY),
                Reason.NO_MATCHING_SIGNATURE);
    }

    @Test
    void ignoresOtherSignatureVersionsAndMalformedEntries() {
        WebhookVerifier verifier = verifierAt(SENT_AT, specSecret);
        String otherVersion = SPEC_SIGNATURE.replace("v1,", "v1a,");

        assertRejected(
                () -> verifier.verify(SPEC_ID, TIMESTAMP, otherVersion, SPEC_BODY), Reason.NO_MATCHING_SIGNATURE);
        assertThat(verifier.verify(SPEC_ID, TIMESTAMP, "v1,%%% " + otherVersion + " " + SPEC_SIGNATURE, SPEC_BODY))
                .isNotNull();
    }

    @Test
    void namesTheMissingHeader() {
        WebhookVerifier verifier = verifierAt(SENT_AT, specSecret);

        assertThatThrownBy(() -> verifier.verify(null, TIMESTAMP, SPEC_SIGNATURE, SPEC_BODY))
                .isInstanceOf(WebhookVerificationException.class)
                .hasMessage("missing header webhook-id");
        assertRejected(() -> verifier.verify(SPEC_ID, " ", SPEC_SIGNATURE, SPEC_BODY), Reason.MISSING_HEADER);
        assertThatThrownBy(() -> verifier.verify(Map.of(), SPEC_BODY)).hasMessage("missing header webhook-id");
        assertThatThrownBy(() -> verifier.verify(SPEC_ID, TIMESTAMP, null, SPEC_BODY))
                .hasMessage("missing header webhook-signature");
    }

    @Test
    void rejectsANonNumericTimestamp() {
        WebhookVerifier verifier = verifierAt(SENT_AT, specSecret);

        assertRejected(
                () -> verifier.verify(SPEC_ID, "2021-02-26T15:02:10Z", SPEC_SIGNATURE, SPEC_BODY),
                Reason.INVALID_TIMESTAMP);
        assertRejected(() -> verifier.verify(SPEC_ID, "-1", SPEC_SIGNATURE, SPEC_BODY), Reason.INVALID_TIMESTAMP);
        assertRejected(
                () -> verifier.verify(SPEC_ID, "99999999999999999999999", SPEC_SIGNATURE, SPEC_BODY),
                Reason.INVALID_TIMESTAMP);
    }

    @Test
    void acceptsTimestampsWithinTheDefaultFiveMinutesEitherWay() {
        Duration tolerance = WebhookVerifier.DEFAULT_TOLERANCE;

        assertThat(verifierAt(SENT_AT.plus(tolerance), specSecret)
                        .verify(SPEC_ID, TIMESTAMP, SPEC_SIGNATURE, SPEC_BODY))
                .isNotNull();
        assertThat(verifierAt(SENT_AT.minus(tolerance), specSecret)
                        .verify(SPEC_ID, TIMESTAMP, SPEC_SIGNATURE, SPEC_BODY))
                .isNotNull();
        assertRejected(
                () -> verifierAt(SENT_AT.plus(tolerance).plusSeconds(1), specSecret)
                        .verify(SPEC_ID, TIMESTAMP, SPEC_SIGNATURE, SPEC_BODY),
                Reason.TIMESTAMP_TOO_OLD);
        assertRejected(
                () -> verifierAt(SENT_AT.minus(tolerance).minusSeconds(1), specSecret)
                        .verify(SPEC_ID, TIMESTAMP, SPEC_SIGNATURE, SPEC_BODY),
                Reason.TIMESTAMP_TOO_NEW);
    }

    @Test
    void checksTheTimestampBeforeTheSignatureSoStaleReplaysAreNamedAsSuch() {
        WebhookVerifier strict = WebhookVerifier.builder()
                .secret(specSecret)
                .tolerance(Duration.ofSeconds(30))
                .clock(Clock.fixed(SENT_AT.plusSeconds(31), ZoneOffset.UTC))
                .build();

        assertThatThrownBy(() -> strict.verify(SPEC_ID, TIMESTAMP, SPEC_SIGNATURE, SPEC_BODY))
                .isInstanceOf(WebhookVerificationException.class)
                .hasMessageContaining("older than the tolerance of PT30S");
    }

    @Test
    void validatesItsConfiguration() {
        assertThatThrownBy(() -> WebhookVerifier.builder().build()).hasMessageContaining("secrets may not be empty");
        assertThatThrownBy(() -> WebhookVerifier.builder().tolerance(Duration.ZERO))
                .hasMessage("tolerance must be positive, got PT0S");
    }

    private static void assertRejected(ThrowingCallable verification, Reason reason) {
        assertThatThrownBy(verification)
                .isInstanceOfSatisfying(
                        WebhookVerificationException.class,
                        e -> assertThat(e.reason()).isEqualTo(reason));
    }
}
