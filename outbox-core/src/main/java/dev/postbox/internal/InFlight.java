package dev.postbox.internal;

import java.util.Collection;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * The claims this engine holds, from claim until their outcome is written (a success counts only
 * once its completion batch committed) or the heartbeat finds the lease lost: what the heartbeat
 * extends, what the start marks are taken from, and what bounds the claims in progress. Removing
 * a claim tells the release callback, once.
 */
final class InFlight {

    private final ConcurrentHashMap<Long, ClaimedJob> claims = new ConcurrentHashMap<>();
    private volatile Consumer<ClaimedJob> onRelease = job -> {};

    /** Called once for every claim that leaves, after its outcome was written (or given up). */
    void onRelease(Consumer<ClaimedJob> onRelease) {
        this.onRelease = onRelease;
    }

    void add(Collection<ClaimedJob> jobs) {
        for (ClaimedJob job : jobs) {
            claims.put(job.id(), job);
        }
    }

    void remove(ClaimedJob job) {
        if (claims.remove(job.id(), job)) {
            onRelease.accept(job);
        }
    }

    /** Whether this claim is still held: not finished, released, or found lost by the heartbeat. */
    boolean holds(ClaimedJob job) {
        return claims.get(job.id()) == job;
    }

    List<ClaimedJob> snapshot() {
        return List.copyOf(claims.values());
    }

    int size() {
        return claims.size();
    }
}
