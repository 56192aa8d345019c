package dev.postbox.console.internal;

import static dev.postbox.console.internal.ConsoleDatabase.instant;
import static dev.postbox.console.internal.ConsoleDatabase.strings;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.jspecify.annotations.Nullable;

/** The overview's workers: the registered worker processes, alive when their heartbeat is recent. */
public final class WorkerStore {

    static final String WORKERS = "SELECT id, host, queues, started_at, heartbeat_at,"
            + " heartbeat_at > now() - ?::bigint * interval '1 millisecond' FROM outbox_worker"
            + " ORDER BY heartbeat_at DESC LIMIT 200";

    private final ConsoleDatabase database;

    public WorkerStore(ConsoleDatabase database) {
        this.database = database;
    }

    /** A registered worker process; alive when its heartbeat is recent. */
    public record Worker(
            String id,
            @Nullable String host,
            List<String> queues,
            Instant startedAt,
            Instant heartbeatAt,
            boolean alive) {}

    public List<Worker> workers(Duration aliveWithin) {
        return database.list(
                WORKERS,
                ps -> ps.setLong(1, aliveWithin.toMillis()),
                rs -> new Worker(
                        rs.getString(1),
                        rs.getString(2),
                        strings(rs.getArray(3)),
                        instant(rs, 4),
                        instant(rs, 5),
                        rs.getBoolean(6)));
    }
}
