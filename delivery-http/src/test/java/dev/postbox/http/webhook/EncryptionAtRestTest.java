package dev.postbox.http.webhook;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.postbox.http.AesGcmSecretCipher;
import dev.postbox.http.LogCapture;
import dev.postbox.http.SecretCipher;
import dev.postbox.http.SecretSlot;
import dev.postbox.http.signing.WebhookSecret;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Signing secrets and header values never sit in {@code outbox_endpoint} in clear. */
class EncryptionAtRestTest {

    private static final String TOKEN = "Bearer tok-8c1f27a9";
    private static final String KEY_1 = AesGcmSecretCipher.generateKey();
    private static final String KEY_2 = AesGcmSecretCipher.generateKey();

    private static Endpoint billing(WebhookSecret secret) {
        return Endpoint.builder("billing", "https://hooks.example.com/in")
                .secret(secret)
                .header("Authorization", TOKEN)
                .header("X-Tenant", "acme-7")
                .build();
    }

    private static AesGcmSecretCipher cipher(Map<String, String> keys, String active) {
        return AesGcmSecretCipher.of(keys, active);
    }

    @Test
    void afterRegistrationTheTableHoldsNoSecretAndNoHeaderValue() {
        try (Harness h = new Harness()) {
            EndpointRegistry registry = h.node().http().endpoints();
            WebhookSecret secret = WebhookSecret.generate();
            registry.register(billing(secret));
            registry.put(Endpoint.builder("orders", "https://hooks.example.com/orders")
                    .secret(WebhookSecret.generate())
                    .secret(WebhookSecret.generate())
                    .header("X-Api-Key", "k3y-0rders")
                    .build());

            String table = tableText(h);
            assertThat(table)
                    .doesNotContain("whsec_")
                    .doesNotContain(secret.serialized().substring("whsec_".length()))
                    .doesNotContain("tok-8c1f27a9")
                    .doesNotContain("acme-7")
                    .doesNotContain("k3y-0rders")
                    .contains("enc:v2:test:")
                    .contains("Authorization");
            Endpoint read = registry.get("billing").orElseThrow();
            assertThat(read.secrets()).containsExactly(secret);
            assertThat(read.headers()).isEqualTo(Map.of("Authorization", TOKEN, "X-Tenant", "acme-7"));
        }
    }

    @Test
    void puttingAnUnchangedDefinitionWritesNothingAlthoughSealingIsRandomised() {
        try (Harness h = new Harness()) {
            EndpointRegistry registry = h.node().http().endpoints();
            Endpoint definition = billing(WebhookSecret.generate());
            registry.put(definition);
            String before = tableText(h);

            registry.put(definition);
            assertThat(tableText(h)).isEqualTo(before);

            registry.put(definition.toBuilder().header("X-Tenant", "acme-8").build());
            assertThat(registry.get("billing").orElseThrow().headers()).containsEntry("X-Tenant", "acme-8");
            assertThat(tableText(h)).doesNotContain("acme-8");
        }
    }

    @Test
    void plainValuesStoredBeforeEncryptionAreRefusedUnlessTheMigrationSwitchIsOnThenReencrypted() {
        try (Harness h = new Harness()) {
            WebhookSecret secret = WebhookSecret.generate();
            h.node(m -> m.secretCipher(SecretCipher.plaintext()), c -> c)
                    .http()
                    .endpoints()
                    .register(billing(secret));
            String plain = tableText(h);
            assertThat(plain).contains(secret.serialized()).contains(TOKEN);

            // Keys configured, switch off (the default): a plain value is not trusted.
            EndpointRegistry keyed = h.node().http().endpoints();
            for (Runnable read : new Runnable[] {() -> keyed.get("billing"), keyed::reencryptSecrets}) {
                assertThatThrownBy(read::run)
                        .isInstanceOf(IllegalStateException.class)
                        .hasMessageContaining("Webhook endpoint 'billing', field 'signing-secret'")
                        .hasMessageContaining("not encrypted although encryption keys are configured")
                        .hasMessageContaining("postbox.http.secrets.migrate-plaintext=true")
                        .message()
                        .doesNotContain(secret.serialized())
                        .doesNotContain("whsec_")
                        .doesNotContain(TOKEN);
            }
            assertThat(tableText(h)).isEqualTo(plain);

            // The switch on: read as they are, and re-encryption seals them.
            EndpointRegistry migrating = h.node(
                            m -> m.secretCipher(Harness.TEST_CIPHER.migratingPlaintext(true)), c -> c)
                    .http()
                    .endpoints();
            assertThat(migrating.get("billing").orElseThrow().secrets()).containsExactly(secret);
            assertThat(migrating.reencryptSecrets()).isEqualTo(1);
            assertThat(tableText(h)).doesNotContain("whsec_").doesNotContain("tok-8c1f27a9");
            assertThat(migrating.reencryptSecrets()).isZero();

            // The switch off again: the sealed values read without it.
            EndpointRegistry after = h.node().http().endpoints();
            assertThat(after.get("billing").orElseThrow().secrets()).containsExactly(secret);
            assertThat(after.get("billing").orElseThrow().headers()).containsEntry("Authorization", TOKEN);
        }
    }

    @Test
    void aPlainValueWrittenIntoASealedRowIsRefused() {
        try (Harness h = new Harness()) {
            EndpointRegistry registry = h.node().http().endpoints();
            registry.register(billing(WebhookSecret.generate()));
            String known = WebhookSecret.generate().serialized();
            h.exec("UPDATE outbox_endpoint SET secrets = ARRAY['" + known + "'],"
                    + " headers = jsonb_set(headers, '{Authorization}', '\"Bearer forged\"') WHERE name = 'billing'");

            assertThatThrownBy(() -> h.node().http().endpoints().get("billing"))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("Webhook endpoint 'billing', field 'signing-secret'")
                    .hasMessageContaining("not encrypted")
                    .message()
                    .doesNotContain(known)
                    .doesNotContain("Bearer forged");
        }
    }

    @Test
    void aSealedValueMovedToAnotherEndpointOrFieldIsRefusedNamingTheEndpointAndField() {
        try (Harness h = new Harness()) {
            EndpointRegistry registry = h.node().http().endpoints();
            WebhookSecret billingSecret = WebhookSecret.generate();
            registry.register(billing(billingSecret));
            registry.register(Endpoint.builder("orders", "https://hooks.example.com/orders")
                    .secret(WebhookSecret.generate())
                    .header("Authorization", "Bearer orders-only")
                    .build());

            // Another row: billing's signing secret copied into orders' row.
            h.exec("UPDATE outbox_endpoint o SET secrets = b.secrets FROM outbox_endpoint b"
                    + " WHERE o.name = 'orders' AND b.name = 'billing'");
            String moved = tableText(h);
            EndpointRegistry reader = h.node().http().endpoints();
            for (Runnable read : new Runnable[] {() -> reader.get("orders"), reader::reencryptSecrets}) {
                assertThatThrownBy(read::run)
                        .isInstanceOf(IllegalStateException.class)
                        .hasMessageContaining("Webhook endpoint 'orders', field 'signing-secret'")
                        .hasMessageContaining("sealed for another endpoint or field")
                        .message()
                        .doesNotContain(billingSecret.serialized())
                        .doesNotContain("whsec_")
                        .doesNotContain(KEY_1)
                        .doesNotContain(Harness.TEST_KEY);
            }
            assertThat(tableText(h)).isEqualTo(moved);
            assertThat(reader.get("billing").orElseThrow().secrets()).containsExactly(billingSecret);

            // Another field of the same row: billing's bearer token copied into its X-Tenant header.
            h.exec("UPDATE outbox_endpoint SET headers = jsonb_set(headers, '{X-Tenant}', headers->'Authorization')"
                    + " WHERE name = 'billing'");
            assertThatThrownBy(() -> h.node().http().endpoints().get("billing"))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("Webhook endpoint 'billing', field 'header:x-tenant'")
                    .hasMessageContaining("sealed for another endpoint or field")
                    .message()
                    .doesNotContain(TOKEN);
        }
    }

    @Test
    void valuesSealedInTheUnboundV1FormatStillOpenAndReencryptionBindsThem() {
        try (Harness h = new Harness()) {
            EndpointRegistry registry = h.node().http().endpoints();
            WebhookSecret secret = WebhookSecret.generate();
            registry.register(billing(secret));
            // As an earlier version stored them: enc:v1, authenticated data the key id only.
            String v1Secret = Harness.TEST_CIPHER.seal(secret.serialized());
            String v1Token = Harness.TEST_CIPHER.seal(TOKEN);
            assertThat(v1Secret).startsWith("enc:v1:test:");
            h.exec("UPDATE outbox_endpoint SET secrets = ARRAY['" + v1Secret + "'], headers = jsonb_build_object("
                    + "'Authorization', '" + v1Token + "') WHERE name = 'billing'");

            EndpointRegistry reader = h.node().http().endpoints();
            assertThat(reader.get("billing").orElseThrow().secrets()).containsExactly(secret);
            assertThat(reader.get("billing").orElseThrow().headers()).isEqualTo(Map.of("Authorization", TOKEN));

            assertThat(reader.reencryptSecrets()).isEqualTo(1);
            assertThat(tableText(h)).doesNotContain("enc:v1:").contains("enc:v2:test:");
            assertThat(reader.get("billing").orElseThrow().secrets()).containsExactly(secret);
            assertThat(reader.get("billing").orElseThrow().headers()).isEqualTo(Map.of("Authorization", TOKEN));
            assertThat(reader.reencryptSecrets()).isZero();

            // Now bound: the same copy between fields is refused.
            h.exec("UPDATE outbox_endpoint SET headers = jsonb_build_object('X-Other', headers->'Authorization')"
                    + " WHERE name = 'billing'");
            assertThatThrownBy(() -> h.node().http().endpoints().get("billing"))
                    .hasMessageContaining("field 'header:x-other'");
        }
    }

    @Test
    void aKeyRotatesByAddingItMakingItActiveAndReencrypting() {
        try (Harness h = new Harness()) {
            WebhookSecret secret = WebhookSecret.generate();
            h.node(m -> m.secretCipher(cipher(Map.of("k1", KEY_1), "k1")), c -> c)
                    .http()
                    .endpoints()
                    .register(billing(secret));
            assertThat(tableText(h)).contains("enc:v2:k1:").doesNotContain("enc:v2:k2:");

            EndpointRegistry both = h.node(m -> m.secretCipher(cipher(Map.of("k1", KEY_1, "k2", KEY_2), "k2")), c -> c)
                    .http()
                    .endpoints();
            assertThat(both.get("billing").orElseThrow().secrets()).containsExactly(secret);
            assertThat(both.reencryptSecrets()).isEqualTo(1);
            assertThat(tableText(h)).contains("enc:v2:k2:").doesNotContain("enc:v2:k1:");

            EndpointRegistry onlyNew = h.node(m -> m.secretCipher(cipher(Map.of("k2", KEY_2), "k2")), c -> c)
                    .http()
                    .endpoints();
            assertThat(onlyNew.get("billing").orElseThrow().secrets()).containsExactly(secret);
            assertThat(onlyNew.get("billing").orElseThrow().headers()).containsEntry("Authorization", TOKEN);

            EndpointRegistry onlyOld = h.node(m -> m.secretCipher(cipher(Map.of("k1", KEY_1), "k1")), c -> c)
                    .http()
                    .endpoints();
            assertThatThrownBy(() -> onlyOld.get("billing"))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("endpoint 'billing'")
                    .hasMessageContaining("encrypted with key 'k2', which is not configured")
                    .hasMessageContaining("postbox.http.secrets.keys");
        }
    }

    @Test
    void aWrongKeyIsAClearErrorNamingTheKeyIdAndNeverTheSecret() {
        try (Harness h = new Harness()) {
            WebhookSecret secret = WebhookSecret.generate();
            h.node(m -> m.secretCipher(cipher(Map.of("k1", KEY_1), "k1")), c -> c)
                    .http()
                    .endpoints()
                    .register(billing(secret));
            String stored = tableText(h);

            EndpointRegistry wrongKey = h.node(m -> m.secretCipher(cipher(Map.of("k1", KEY_2), "k1")), c -> c)
                    .http()
                    .endpoints();
            for (Runnable read :
                    new Runnable[] {() -> wrongKey.get("billing"), wrongKey::list, wrongKey::reencryptSecrets}) {
                assertThatThrownBy(read::run)
                        .isInstanceOf(IllegalStateException.class)
                        .hasMessageContaining("cannot be decrypted with key 'k1'")
                        .hasMessageContaining("endpoint 'billing'")
                        .message()
                        .doesNotContain(secret.serialized())
                        .doesNotContain("whsec_")
                        .doesNotContain(TOKEN)
                        .doesNotContain(KEY_1)
                        .doesNotContain(KEY_2)
                        .doesNotContain(
                                stored.substring(stored.indexOf("enc:v2:k1:") + 10, stored.indexOf("enc:v2:k1:") + 30));
            }
            assertThat(tableText(h)).isEqualTo(stored);
        }
    }

    @Test
    void withoutAKeyRegistrationFailsNamingTheFixAndWritesNothing() {
        try (Harness h = new Harness();
                LogCapture log = LogCapture.of(EndpointRegistry.class)) {
            EndpointRegistry unconfigured = h.node(m -> m.secretCipher(SecretCipher.unconfigured()), c -> c)
                    .http()
                    .endpoints();
            Endpoint endpoint = billing(WebhookSecret.generate());
            for (Runnable write : new Runnable[] {
                () -> unconfigured.register(endpoint), () -> unconfigured.put(endpoint), unconfigured::reencryptSecrets
            }) {
                assertThatThrownBy(write::run)
                        .isInstanceOf(IllegalStateException.class)
                        .hasMessageContaining("would be stored in clear")
                        .hasMessageContaining("postbox.http.secrets.keys")
                        .hasMessageContaining("postbox.http.secrets.allow-plaintext=true");
            }
            assertThat(h.count("SELECT count(*) FROM outbox_endpoint")).isZero();
            assertThat(log.text()).doesNotContain("whsec_");
        }
    }

    @Test
    void invalidKeysAreRefusedNamingTheKeyIdNeverTheKey() {
        assertThatThrownBy(() -> AesGcmSecretCipher.of(Map.of("k1", "not base64!"), "k1"))
                .hasMessageContaining("encryption key 'k1' is not valid base64")
                .message()
                .doesNotContain("not base64!");
        assertThatThrownBy(() -> AesGcmSecretCipher.of(Map.of("k1", "c2hvcnQ="), "k1"))
                .hasMessageContaining("encryption key 'k1' is 5 bytes long");
        assertThatThrownBy(() -> AesGcmSecretCipher.of(Map.of("k1", KEY_1), "k9"))
                .hasMessageContaining("active encryption key 'k9' is not among the configured keys [k1]")
                .message()
                .doesNotContain(KEY_1);
        assertThatThrownBy(() -> AesGcmSecretCipher.of(Map.of("bad id", KEY_1), "bad id"))
                .hasMessageContaining("encryption key id 'bad id' is invalid");
    }

    @Test
    void aSealedValueCannotBeMovedToAnotherKeyId() {
        AesGcmSecretCipher cipher = cipher(Map.of("k1", KEY_1, "k2", KEY_1), "k1");
        String sealed = cipher.seal("whsec_c2VjcmV0");
        String relabelled = sealed.replace("enc:v1:k1:", "enc:v1:k2:");

        assertThat(cipher.open(sealed)).isEqualTo("whsec_c2VjcmV0");
        assertThatThrownBy(() -> cipher.open(relabelled)).hasMessageContaining("cannot be decrypted with key 'k2'");
        assertThat(cipher.seal("x")).isNotEqualTo(cipher.seal("x"));

        SecretSlot slot = SecretSlot.signingSecret("billing");
        String bound = cipher.seal("whsec_c2VjcmV0", slot);
        assertThat(cipher.open(bound, slot)).isEqualTo("whsec_c2VjcmV0");
        assertThatThrownBy(() -> cipher.open(bound.replace("enc:v2:k1:", "enc:v2:k2:"), slot))
                .hasMessageContaining("cannot be decrypted with key 'k2'");
        assertThatThrownBy(() -> cipher.open(bound.replace("enc:v2:", "enc:v1:"), slot))
                .hasMessageContaining("cannot be decrypted with key 'k1'");
        assertThatThrownBy(() -> cipher.open(bound)).hasMessageContaining("open it with open(stored, SecretSlot)");
    }

    @Test
    void aBoundValueOpensOnlyInItsSlot() {
        AesGcmSecretCipher cipher = cipher(Map.of("k1", KEY_1), "k1");
        String sealed = cipher.seal("Bearer t", SecretSlot.header("billing", "Authorization"));

        assertThat(cipher.open(sealed, SecretSlot.header("billing", "authorization")))
                .isEqualTo("Bearer t");
        for (SecretSlot other : new SecretSlot[] {
            SecretSlot.header("billin", "Authorization"),
            SecretSlot.header("orders", "Authorization"),
            SecretSlot.header("billing", "X-Api-Key"),
            SecretSlot.signingSecret("billing"),
            new SecretSlot("billingheader:authorization", "x")
        }) {
            assertThatThrownBy(() -> cipher.open(sealed, other))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("sealed for another endpoint or field")
                    .message()
                    .doesNotContain("Bearer t");
        }
    }

    /** Every stored secret and header of every endpoint, as text. */
    private static String tableText(Harness h) {
        StringBuilder all = new StringBuilder();
        try (Connection c = h.ds.getConnection();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(
                        "SELECT name, secrets::text, headers::text, updated_at FROM outbox_endpoint ORDER BY name")) {
            while (rs.next()) {
                all.append(rs.getString(1))
                        .append(' ')
                        .append(rs.getString(2))
                        .append(' ')
                        .append(rs.getString(3))
                        .append(' ')
                        .append(rs.getString(4))
                        .append('\n');
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
        return all.toString();
    }
}
