package dev.postbox.spring.internal;

import java.sql.SQLException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTransientConnectionException;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Start-up database work (the schema check, endpoint and schedule registration) that a lost
 * connection must not turn into a failed start: a connection cut by the server ({@code
 * pg_terminate_backend}, a restart, a fail-over) while the application starts is retried a few times
 * with full-jitter backoff, and the work is repeated whole (every start-up write is an idempotent
 * upsert). Any other failure (a refused database, missing tables, invalid configuration) is thrown at
 * once, unchanged.
 */
public final class StartupRetry {

    private static final Logger log = LoggerFactory.getLogger(StartupRetry.class);

    /** Attempts in all, the first included. */
    static final int ATTEMPTS = 6;

    private static final Duration FIRST_BACKOFF = Duration.ofMillis(200);
    private static final Duration MAX_BACKOFF = Duration.ofSeconds(3);

    private StartupRetry() {}

    /** Runs {@code work}, repeating it while it fails because the connection was lost. */
    public static <T> T call(String what, Supplier<T> work) {
        for (int attempt = 1; ; attempt++) {
            try {
                return work.get();
            } catch (RuntimeException e) {
                if (attempt >= ATTEMPTS || !connectionLost(e)) {
                    throw e;
                }
                long capMillis = Math.min(MAX_BACKOFF.toMillis(), FIRST_BACKOFF.toMillis() << (attempt - 1));
                long pause = 1 + ThreadLocalRandom.current().nextLong(capMillis);
                log.warn(
                        "Postbox {}: the database connection was lost (attempt {} of {}: {}); trying again in {} ms",
                        what,
                        attempt,
                        ATTEMPTS,
                        sqlState(e),
                        pause);
                sleep(pause);
            }
        }
    }

    /** Runs {@code work}, repeating it while it fails because the connection was lost. */
    public static void run(String what, Runnable work) {
        call(what, () -> {
            work.run();
            return null;
        });
    }

    /**
     * Whether {@code failure} comes from a connection that broke or could not be had for a moment:
     * SQLSTATE class 08 (connection exception), 57P01-57P03 (administrator or crash shutdown, cannot
     * connect now), or the driver's recoverable and transient-connection exceptions.
     */
    public static boolean connectionLost(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof SQLRecoverableException || t instanceof SQLTransientConnectionException) {
                return true;
            }
            if (t instanceof SQLException sql && sql.getSQLState() != null) {
                String state = sql.getSQLState();
                if (state.startsWith("08") || state.equals("57P01") || state.equals("57P02") || state.equals("57P03")) {
                    return true;
                }
            }
        }
        return false;
    }

    private static String sqlState(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof SQLException sql && sql.getSQLState() != null) {
                return "SQLSTATE " + sql.getSQLState();
            }
        }
        return failure.getClass().getSimpleName();
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Postbox start-up interrupted while waiting for the database", e);
        }
    }
}
