package dev.postbox.internal;

import java.util.Collection;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

/** The claims this engine holds, from claim until their outcome is written: what the heartbeat extends. */
final class InFlight {

    private final ConcurrentHashMap<Long, ClaimedJob> claims = new ConcurrentHashMap<>();

    void add(Collection<ClaimedJob> jobs) {
        for (ClaimedJob job : jobs) {
            claims.put(job.id(), job);
        }
    }

    void remove(ClaimedJob job) {
        claims.remove(job.id(), job);
    }

    List<ClaimedJob> snapshot() {
        return List.copyOf(claims.values());
    }

    int size() {
        return claims.size();
    }
}
