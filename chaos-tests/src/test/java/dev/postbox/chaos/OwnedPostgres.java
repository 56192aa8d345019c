package dev.postbox.chaos;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An embedded PostgreSQL a soak run owns ({@code -Dchaos.ownServer=true}), on a data directory
 * that survives {@link #restart()}: the server can be stopped and started again on the same port
 * while workers and the producer keep running.
 */
final class OwnedPostgres implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(OwnedPostgres.class);

    private final Path dataDirectory;
    private final AtomicInteger restarts = new AtomicInteger();
    private volatile EmbeddedPostgres server;

    private OwnedPostgres(Path dataDirectory, EmbeddedPostgres server) {
        this.dataDirectory = dataDirectory;
        this.server = server;
    }

    static OwnedPostgres start() throws IOException {
        Path dir = Files.createTempDirectory("chaos-pg-");
        EmbeddedPostgres pg = EmbeddedPostgres.builder()
                .setDataDirectory(dir)
                .setCleanDataDirectory(false)
                .start();
        log.info("Chaos run owns its PostgreSQL: port {}, data {}", pg.getPort(), dir);
        return new OwnedPostgres(dir, pg);
    }

    String adminUrl() {
        return server.getJdbcUrl("postgres", "postgres");
    }

    int port() {
        return server.getPort();
    }

    int restarts() {
        return restarts.get();
    }

    /**
     * Stops the server (fast shutdown), leaves it down for {@code downMillis}, and starts it on the
     * same data directory and port; returns the whole downtime in ms.
     */
    long restart(long downMillis) {
        long t0 = System.nanoTime();
        int port = server.getPort();
        try {
            server.close();
            Thread.sleep(downMillis);
            server = EmbeddedPostgres.builder()
                    .setDataDirectory(dataDirectory)
                    .setCleanDataDirectory(false)
                    .setPort(port)
                    .start();
        } catch (IOException e) {
            throw new UncheckedIOException("restarting the owned PostgreSQL failed", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while the owned PostgreSQL was down", e);
        }
        restarts.incrementAndGet();
        return (System.nanoTime() - t0) / 1_000_000;
    }

    /** Stops the server and deletes its data directory, unless {@code -Dchaos.keepDatabase=true}. */
    @Override
    public void close() {
        try {
            server.close();
            if (Boolean.getBoolean("chaos.keepDatabase")) {
                log.info("Keeping the owned PostgreSQL's data directory {} (-Dchaos.keepDatabase=true)", dataDirectory);
                return;
            }
            try (var files = Files.walk(dataDirectory)) {
                for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(p);
                }
            }
        } catch (IOException e) {
            log.warn("stopping the owned PostgreSQL failed", e);
        }
    }
}
