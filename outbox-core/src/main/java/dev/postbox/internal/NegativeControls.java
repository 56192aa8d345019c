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
 * postbox.control.<name>} ({@code -Dpostbox.control.chargeAtClaim=true}). The engine logs a
 * warning at start when any flag is on.
 */
public final class NegativeControls {

    /** Prefix of the system properties. */
    public static final String PREFIX = "postbox.control.";

    /**
     * {@code chargeAtClaim}: an expired lease is charged whether or not its attempt started, as
     * before issue 11, so a crashed worker's prefetched jobs lose an attempt each.
     */
    public static final boolean CHARGE_AT_CLAIM = flag("chargeAtClaim");

    private NegativeControls() {}

    private static boolean flag(String name) {
        return Boolean.getBoolean(PREFIX + name);
    }

    /** The property names of the flags that are on. */
    static List<String> enabled() {
        List<String> on = new ArrayList<>();
        if (CHARGE_AT_CLAIM) {
            on.add(PREFIX + "chargeAtClaim");
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
