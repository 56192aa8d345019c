package dev.postbox.chaos;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.postbox.Postbox;
import dev.postbox.cron.ScheduleMaterializer;
import java.time.Duration;

/**
 * The cron node: a process that only runs the schedule materialiser, on a clock {@value
 * #AHEAD_SECONDS} s ahead of the database's, so fires are planned that much early (a skewed
 * scheduler). The fault injector leaves it alone; the workers' own materialisers run
 * on the database clock beside it. Negative controls reach it like the workers, as {@code
 * -Dpostbox.control.*} flags.
 */
public final class CronNodeMain {

    static final int AHEAD_SECONDS = 5;

    private CronNodeMain() {}

    public static void main(String[] args) throws Exception {
        String workerId = WorkerMain.required("chaos.workerId");
        HikariConfig hc = new HikariConfig();
        hc.setJdbcUrl(WorkerMain.required("chaos.jdbcUrl"));
        hc.setPoolName(workerId);
        hc.setMaximumPoolSize(2);
        hc.setMinimumIdle(1);
        hc.setInitializationFailTimeout(20_000); // waits out a soak's PostgreSQL restart at start (as WorkerMain)
        HikariDataSource ds = new HikariDataSource(hc);
        Postbox postbox = Postbox.builder(ds).build(); // its outbox only; never started
        ScheduleMaterializer materializer = ScheduleMaterializer.builder(ds, postbox.outbox())
                .pollInterval(Duration.ofMillis(250))
                .clockOffset(() -> Duration.ofSeconds(AHEAD_SECONDS))
                .build();
        materializer.start();
        System.out.println(
                "READY " + workerId + " pid=" + ProcessHandle.current().pid());
        System.out.flush();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            materializer.stop();
            ds.close();
        }));
        Thread.currentThread().join();
    }
}
