package dev.postbox.internal;

import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/** A one-thread scheduler whose daemon thread ends after a quiet minute and comes back on demand. */
final class DaemonExecutor {

    private static final AtomicInteger THREADS = new AtomicInteger();

    private DaemonExecutor() {}

    static ScheduledThreadPoolExecutor singleThread(String namePrefix) {
        ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, namePrefix + THREADS.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        executor.setKeepAliveTime(1, TimeUnit.MINUTES);
        executor.allowCoreThreadTimeOut(true);
        return executor;
    }
}
