package dev.postbox.spring.observation;

import java.util.Map;
import org.jspecify.annotations.Nullable;

/** The setter of the observation contexts whose carrier is a map of trace headers. */
final class TraceCarrier {

    private TraceCarrier() {}

    /** Puts one header; Micrometer may call it before a carrier is set, and then there is nothing to write. */
    static void put(@Nullable Map<String, String> carrier, String key, String value) {
        if (carrier != null) {
            carrier.put(key, value);
        }
    }
}
