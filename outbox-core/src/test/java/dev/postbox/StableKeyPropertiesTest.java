package dev.postbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.regex.Pattern;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Assume;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import org.jspecify.annotations.Nullable;

/**
 * Issue 31 item 7: {@link Job#stableKey()} (the {@code webhook-id}, the broker's message id) is
 * injective. Two jobs get the same delivery id only when they have the same tenant and idempotency
 * key; a caller's key never reads as another tenant's, nor as an id Postbox generates. Keys and
 * tenants are drawn from a small alphabet full of the characters the encoding uses ({@code /},
 * {@code .}, {@code %2E}, {@code postbox-}), so the confusable pairs come up often.
 */
class StableKeyPropertiesTest {

    private static final JsonCodec CODEC = JsonCodec.jackson();
    private static final Pattern GENERATED = Pattern.compile("postbox-[0-9a-z-]*");

    /** Whose key a delivery id says it is: a caller's (tenant, key), or a key Postbox generated. */
    private record Identity(
            @Nullable String tenant,
            @Nullable String key,
            @Nullable String generated) {
        static Identity keyed(@Nullable String tenant, String key) {
            return new Identity(tenant, key, null);
        }

        static Identity generated(String id) {
            return new Identity(null, null, id);
        }
    }

    /** A job and what it is: its tenant and idempotency key, or (without a key) its generated key. */
    private record Case(Job job, Identity identity) {}

    @Example
    void theIssuesCollisionsAreGone() {
        // A default-tenant key that looks like tenant acme's key order-1, and tenant acme's order-1.
        assertThat(keyed(null, "acme/order-1").stableKey())
                .isEqualTo("/acme/order-1")
                .isNotEqualTo(keyed("acme", "order-1").stableKey());
        assertThat(keyed("acme", "order-1").stableKey()).isEqualTo("acme/order-1");
        // A caller's key that imitates the generated key of another job.
        Job generated = Job.builder(42, "k", "{}", CODEC)
                .installationId("0123456789abcdef")
                .createdAt(Instant.parse("2026-12-03T10:15:30.123456Z"))
                .build();
        assertThat(keyed(null, generated.generatedKey()).stableKey())
                .isEqualTo("/" + generated.generatedKey())
                .isNotEqualTo(generated.stableKey());
        assertThat(keyed(null, "postbox-42").stableKey()).isEqualTo("/postbox-42");
        // Keys of the default tenant that cannot be confused are sent as they are (fan-out copies too).
        assertThat(keyed(null, "order-4711-created").stableKey()).isEqualTo("order-4711-created");
        assertThat(keyed(null, "postbox-0123456789abcdef-42-x1:billing").stableKey())
                .isEqualTo("postbox-0123456789abcdef-42-x1:billing");
        // A tenant's '.' would end the webhook-id in Standard Webhooks' signed content.
        assertThat(keyed("acme.eu", "billing:order-1").stableKey()).isEqualTo("acme%2Eeu/billing:order-1");
    }

    @Property(tries = 3000)
    void distinctJobsNeverShareADeliveryId(@ForAll("cases") Case a, @ForAll("cases") Case b) {
        Assume.that(!a.identity().equals(b.identity()));
        assertThat(a.job().stableKey()).isNotEqualTo(b.job().stableKey());
    }

    @Property(tries = 3000)
    void aReceiverReadsEveryDeliveryIdBackAsTheJobsTenantAndKey(@ForAll("cases") Case c) {
        assertThat(read(c.job().stableKey())).isEqualTo(c.identity());
    }

    /**
     * How docs/webhooks.md tells a receiver to read a delivery id: by its first {@code /}; at the
     * start, the default tenant's key follows; elsewhere, the (percent-encoded) tenant precedes it;
     * none, a generated key or the default tenant's key as given.
     */
    private static Identity read(String id) {
        int slash = id.indexOf('/');
        if (slash == 0) {
            return Identity.keyed(null, id.substring(1));
        }
        if (slash > 0) {
            return Identity.keyed(id.substring(0, slash).replace("%2E", "."), id.substring(slash + 1));
        }
        return GENERATED.matcher(id).matches() ? Identity.generated(id) : Identity.keyed(null, id);
    }

    @Provide
    Arbitrary<Case> cases() {
        Arbitrary<Case> keyedCases = Combinators.combine(tenants().injectNull(0.4), keys())
                .as((tenant, key) -> new Case(keyed(tenant, key), Identity.keyed(tenant, key)));
        Arbitrary<Case> generatedCases = Combinators.combine(
                        Arbitraries.strings()
                                .withChars("0123456789abcdef")
                                .ofMinLength(1)
                                .ofMaxLength(3)
                                .injectNull(0.3),
                        Arbitraries.longs().between(1, 30),
                        Arbitraries.longs().between(0, 5),
                        tenants().injectNull(0.5))
                .as((installation, id, micros, tenant) -> {
                    Job job = Job.builder(id, "k", "{}", CODEC)
                            .installationId(installation)
                            .createdAt(Instant.EPOCH.plusNanos(micros * 1000))
                            .tenant(tenant)
                            .build();
                    return new Case(job, Identity.generated(job.generatedKey()));
                });
        // Callers who copy a generated key of another job into an idempotency key.
        Arbitrary<Case> imitations = Combinators.combine(
                        generatedCases, tenants().injectNull(0.6))
                .as((g, tenant) -> {
                    String key = g.job().generatedKey();
                    return new Case(keyed(tenant, key), Identity.keyed(tenant, key));
                });
        return Arbitraries.frequencyOf(Tuple.of(5, keyedCases), Tuple.of(2, generatedCases), Tuple.of(2, imitations));
    }

    private static Arbitrary<String> tenants() {
        return Arbitraries.strings()
                .withChars("ab1.-_")
                .ofMinLength(1)
                .ofMaxLength(4)
                .filter(t -> Character.isLetterOrDigit(t.charAt(0)));
    }

    private static Arbitrary<String> keys() {
        Arbitrary<String> tricky =
                Arbitraries.strings().withChars("ab1/.%2E-_:").ofMinLength(1).ofMaxLength(8);
        Arbitrary<String> prefixed = Combinators.combine(
                        Arbitraries.of("postbox-", "/", "a/", "a%2E", "a.b/", "%2E/", "postbox-a/"), tricky)
                .as(String::concat);
        return Arbitraries.oneOf(
                tricky, prefixed, Arbitraries.strings().ofMinLength(1).ofMaxLength(20));
    }

    private static Job keyed(@Nullable String tenant, String key) {
        return Job.builder(1, "k", "{}", CODEC)
                .installationId("0123456789abcdef")
                .idempotencyKey(key)
                .tenant(tenant)
                .build();
    }
}
