package dev.postbox.chaos;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.postbox.HandlerRegistration;
import dev.postbox.Postbox;
import dev.postbox.PostboxConfig;
import dev.postbox.PostboxListener;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import javax.sql.DataSource;

/**
 * A chaos worker without Spring Boot: the plain engine with the same local handler, markers and
 * crash points as {@link WorkerMain}, and the same {@code chaos.*} settings. The crash storm uses
 * it: a Spring Boot worker costs 1.5-2 CPU seconds to start, and a SIGKILL every 1-3 s would spend
 * a 2-core box's time on restarts rather than on the backlog. It starts in well under a second.
 */
public final class PlainWorkerMain {

    private PlainWorkerMain() {}

    public static void main(String[] args) throws Exception {
        String workerId = WorkerMain.required("chaos.workerId");
        CrashPoints crash = CrashPoints.fromSystemProperties();
        HikariConfig hc = new HikariConfig();
        hc.setJdbcUrl(WorkerMain.required("chaos.jdbcUrl"));
        hc.setPoolName(workerId);
        hc.setMaximumPoolSize(Integer.parseInt(WorkerMain.required("chaos.poolSize")));
        hc.setMinimumIdle(2);
        hc.setConnectionTimeout(5_000);
        HikariDataSource pool = new HikariDataSource(hc);
        DataSource ds = crash.wrap(pool);
        ChaosHandlers handlers = new ChaosHandlers(
                ds,
                crash,
                workerId,
                Integer.getInteger("chaos.localWorkMaxMs", 0),
                WorkerDefects.fromSystemProperties(),
                null);
        Postbox postbox = Postbox.builder(ds)
                .config(PostboxConfig.custom()
                        .workerId(workerId)
                        .concurrency(Integer.parseInt(WorkerMain.required("chaos.concurrency")))
                        .claimBatchSize(Integer.parseInt(WorkerMain.required("chaos.claimBatchSize")))
                        .prefetch(Integer.parseInt(WorkerMain.required("chaos.prefetch")))
                        .pollInterval(Duration.ofMillis(250))
                        .visibilityTimeout(Duration.ofMillis(Long.parseLong(WorkerMain.required("chaos.visibilityMs"))))
                        .heartbeatInterval(Duration.ofMillis(Long.parseLong(WorkerMain.required("chaos.heartbeatMs"))))
                        .rescueInterval(Duration.ofMillis(500))
                        .retryPolicy(WorkerMain.REGULAR)
                        .shutdownGrace(Duration.ofSeconds(2))
                        .build())
                .listener(new PostboxListener() {
                    @Override
                    public void staleToken(long jobId, String operation) {
                        System.out.println("STALE job=" + jobId + " op=" + operation);
                    }
                })
                .handler(HandlerRegistration.of(WorkerMain.LOCAL, handlers::local)
                        .transactional()
                        .retryPolicy(WorkerMain.REGULAR))
                .handler(HandlerRegistration.of(WorkerMain.POISON, handlers::poison))
                .build();
        postbox.start();
        System.out.println(
                "READY " + workerId + " pid=" + ProcessHandle.current().pid() + " crashPoint=" + crash.armedLabel()
                        + " uptimeMs=" + ManagementFactory.getRuntimeMXBean().getUptime());
        System.out.flush();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            postbox.stop();
            pool.close();
        }));
        Thread.currentThread().join();
    }
}
