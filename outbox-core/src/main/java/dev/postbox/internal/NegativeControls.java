package dev.postbox.internal;

import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;

/**
 * Deliberate defects for the chaos suite's negative controls; never set in production. A negative
 * control runs the chaos checker against an engine with one guarantee switched off, to prove that
 * the checker notices (a run judged valid with the defect in place means the checker is blind).
 *
 * <p>Each flag is read once, when this class loads, from the system property {@code
 * postbox.control.<name>} ({@code -Dpostbox.control.chargeAtClaim=true}), and is checked at
 * the one place where its defect lives. The engine logs a warning at start when any flag is on.
 */
public final class NegativeControls {

    /** Prefix of the system properties. */
    public static final String PREFIX = "postbox.control.";

    /**
     * {@code chargeAtClaim}: an expired lease is charged whether or not its attempt started, as
     * before issue 11, so a crashed worker's prefetched jobs lose an attempt each.
     */
    public static final boolean CHARGE_AT_CLAIM = flag("chargeAtClaim");

    /**
     * {@code unfencedCompletion}: a transactional handler's writes commit even when its completion
     * found the lease token stale, as in an engine whose completion ignores the token (a worker
     * that lost its lease commits its effect a second time).
     */
    public static final boolean UNFENCED_COMPLETION = flag("unfencedCompletion");

    /**
     * {@code ignoreOrderingKey}: the claim takes jobs that share an ordering key while an earlier
     * one of the key is still live, so they run concurrently and out of order.
     */
    public static final boolean IGNORE_ORDERING_KEY = flag("ignoreOrderingKey");

    /**
     * {@code cronWithoutFireKey}: the schedule materialiser enqueues fires without their fire key,
     * so a fire planned twice (after a timing change re-registers a schedule that a skewed node had
     * already planned ahead) becomes two jobs.
     */
    public static final boolean CRON_WITHOUT_FIRE_KEY = flag("cronWithoutFireKey");

    /** Name of the {@link #tenantBlindKeys()} flag. */
    private static final String TENANT_BLIND_KEYS = "tenantBlindKeys";

    private NegativeControls() {}

    /**
     * {@code tenantBlindKeys}: a named tenant's idempotency key is deduplicated against every
     * tenant's (kept in the default tenant's key table, unique by key alone), so the same key in two
     * tenants yields one job and the second tenant's enqueue gets the first one's. Unlike the other
     * flags it is read at each keyed enqueue of a named tenant, not once: enqueues run in the
     * application's JVM, which in the chaos suite runs the valid run and the controls one after the
     * other.
     */
    public static boolean tenantBlindKeys() {
        return flag(TENANT_BLIND_KEYS);
    }

    private static boolean flag(String name) {
        return Boolean.getBoolean(PREFIX + name);
    }

    /** The property names of the flags that are on. */
    static List<String> enabled() {
        List<String> on = new ArrayList<>();
        if (CHARGE_AT_CLAIM) {
            on.add(PREFIX + "chargeAtClaim");
        }
        if (UNFENCED_COMPLETION) {
            on.add(PREFIX + "unfencedCompletion");
        }
        if (IGNORE_ORDERING_KEY) {
            on.add(PREFIX + "ignoreOrderingKey");
        }
        if (CRON_WITHOUT_FIRE_KEY) {
            on.add(PREFIX + "cronWithoutFireKey");
        }
        if (tenantBlindKeys()) {
            on.add(PREFIX + TENANT_BLIND_KEYS);
        }
        return on;
    }

    /** Warns when any flag is on; called at engine start. */
    static void warnIfEnabled(Logger log) {
        List<String> on = enabled();
        if (!on.isEmpty()) {
            log.warn(
                    "Negative controls on: {}. These are deliberate defects for the chaos suite; never set"
                            + " them in production",
                    on);
        }
    }
}
