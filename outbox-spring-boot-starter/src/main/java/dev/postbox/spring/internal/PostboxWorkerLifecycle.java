package dev.postbox.spring.internal;

import dev.postbox.Postbox;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

/**
 * Starts the Postbox worker once the context is refreshed and stops it gracefully in Spring's
 * shutdown: no new claims, unstarted claims released without charging an attempt, running jobs
 * given {@code postbox.worker.shutdown-grace}. Its phase is {@link SmartLifecycle#DEFAULT_PHASE}: it
 * starts after the web server and stops before it, so handlers can still call the application's own
 * endpoints while finishing. At start it warns when the {@code DataSource}'s pool is smaller than
 * the worker may use at once ({@link PoolSizeCheck}), and says (INFO) when it sets no socket timeout
 * ({@link SocketTimeoutCheck}).
 */
public final class PostboxWorkerLifecycle implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(PostboxWorkerLifecycle.class);

    private final Postbox postbox;
    private final DataSource dataSource;

    public PostboxWorkerLifecycle(Postbox postbox, DataSource dataSource) {
        this.postbox = postbox;
        this.dataSource = dataSource;
    }

    @Override
    public void start() {
        PoolSizeCheck.warning(dataSource, postbox.config().concurrency()).ifPresent(log::warn);
        SocketTimeoutCheck.advice(dataSource).ifPresent(log::info);
        postbox.start();
        log.info(
                "Postbox worker {} started on queues {}",
                postbox.config().workerId(),
                postbox.config().queues());
    }

    @Override
    public void stop() {
        postbox.stop();
    }

    @Override
    public void stop(Runnable callback) {
        Thread stopper = new Thread(
                () -> {
                    try {
                        postbox.stop();
                    } finally {
                        callback.run();
                    }
                },
                "postbox-shutdown");
        stopper.setDaemon(true);
        stopper.start();
    }

    @Override
    public boolean isRunning() {
        return postbox.isRunning();
    }

    @Override
    public int getPhase() {
        return DEFAULT_PHASE;
    }
}
