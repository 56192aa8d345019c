package dev.postbox.spring.schedule;

import dev.postbox.cron.ScheduleMaterializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

/**
 * Runs this node's {@link ScheduleMaterializer} from the end of the context refresh until shutdown.
 * Every node may run one, no leader: each fire still becomes exactly one job. Created when {@code
 * postbox.scheduler.enabled} is true, or unset and the worker runs ({@code postbox.worker.enabled}).
 */
public final class ScheduleMaterializerLifecycle implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(ScheduleMaterializerLifecycle.class);

    private final ScheduleMaterializer materializer;
    private volatile boolean running;

    public ScheduleMaterializerLifecycle(ScheduleMaterializer materializer) {
        this.materializer = materializer;
    }

    /** The materialiser (tests call {@link ScheduleMaterializer#materializeAllDue()} on it). */
    public ScheduleMaterializer materializer() {
        return materializer;
    }

    @Override
    public void start() {
        materializer.start();
        running = true;
        log.info("Postbox schedule materialiser started");
    }

    @Override
    public void stop() {
        materializer.stop();
        running = false;
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    @Override
    public int getPhase() {
        return DEFAULT_PHASE;
    }
}
