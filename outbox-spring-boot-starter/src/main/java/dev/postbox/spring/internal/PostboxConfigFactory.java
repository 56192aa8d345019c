package dev.postbox.spring.internal;

import dev.postbox.PostboxConfig;
import dev.postbox.spring.PostboxProperties;
import java.util.LinkedHashSet;
import java.util.concurrent.ThreadFactory;
import org.jspecify.annotations.Nullable;

/** Turns {@code postbox.*} properties into a {@link PostboxConfig.Builder}. */
public final class PostboxConfigFactory {

    private PostboxConfigFactory() {}

    /** A builder preset from the properties; customizers may still change it. */
    public static PostboxConfig.Builder builder(PostboxProperties properties, @Nullable ThreadFactory workerThreads) {
        PostboxProperties.Worker worker = properties.getWorker();
        PostboxConfig.Builder b = PostboxConfig.custom()
                .queues(new LinkedHashSet<>(worker.getQueues()))
                .concurrency(worker.getConcurrency())
                .claimBatchSize(worker.getClaimBatchSize())
                .pollInterval(worker.getPollInterval())
                .listenNotify(worker.isListenNotify())
                .visibilityTimeout(worker.getVisibilityTimeout())
                .heartbeatInterval(worker.getHeartbeatInterval())
                .rescueInterval(worker.getRescueInterval())
                .completionBatchSize(worker.getCompletionBatchSize())
                .completionFlushInterval(worker.getCompletionFlushInterval())
                .shutdownGrace(worker.getShutdownGrace())
                .maintenanceInterval(worker.getMaintenanceInterval())
                .slowAttemptThreshold(worker.getSlowAttemptThreshold())
                .laneWeights(
                        worker.getLaneWeights().getHigh(),
                        worker.getLaneWeights().getNormal(),
                        worker.getLaneWeights().getLow())
                .retryPolicy(properties.getRetry().toPolicy())
                .attemptLog(properties.getAttemptLog())
                .idempotencyWindow(properties.getIdempotencyWindow())
                .maxPayloadBytes(properties.getMaxPayloadBytes())
                .maxResultBytes(properties.getMaxResultBytes())
                .unknownKindDelay(properties.getUnknownKindDelay())
                .notifyInterval(properties.getNotifyInterval())
                .transactionMode(properties.getTransactionMode())
                .archiveRetention(properties.getArchive().getRetention())
                .partitionsAhead(properties.getArchive().getPartitionsAhead())
                .workerThreadFactory(workerThreads);
        worker.getQueueConcurrency().forEach(b::queueConcurrency);
        PostboxProperties.Tenants tenants = properties.getTenants();
        b.tenantsPerClaim(tenants.getPerClaim());
        if (tenants.getConcurrency() != null) {
            b.tenantConcurrency(tenants.getConcurrency());
        }
        tenants.getConcurrencyOverrides().forEach(b::tenantConcurrency);
        b.attemptTimeLimit(worker.getAttemptTimeLimit());
        if (worker.getStuckThreadLimit() != null) {
            b.stuckThreadLimit(worker.getStuckThreadLimit());
        }
        if (worker.getPrefetch() != null) {
            b.prefetch(worker.getPrefetch());
        }
        if (worker.getId() != null && !worker.getId().isBlank()) {
            b.workerId(worker.getId());
        }
        return b;
    }
}
