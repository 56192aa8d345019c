package dev.postbox.cron;

import dev.postbox.Require;
import dev.postbox.TenantId;
import dev.postbox.cron.internal.ScheduleStore;
import dev.postbox.internal.Transactions;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Stores schedule definitions in {@code outbox_schedule}: upserts them at start-up, pauses or resumes
 * them, and reads them back with their recent fires. Thread-safe.
 *
 * <p>{@link #register(Collection)} is idempotent and safe when every node of a cluster calls it at
 * once: each definition is one upsert statement, taken in name order (so two nodes never wait for
 * each other's rows crosswise). A new schedule starts with the first fire after the database's now.
 * A changed definition keeps its fire state unless its timing (cron, zone, DST gap policy) changed,
 * in which case it restarts from the first fire after now; a fire instant still creates at most one
 * job, whatever the definition. When nodes register different definitions of one schedule (a
 * rolling deploy), the last one to register wins, without an error, and the change is logged.
 * Schedules stored but absent from the definitions are left alone (another application version may
 * still declare them).
 */
public final class ScheduleRegistry {

    private static final Logger log = LoggerFactory.getLogger(ScheduleRegistry.class);

    private final DataSource dataSource;
    private final ScheduleStore store = new ScheduleStore();

    /** A registry on the database holding the Postbox schema. */
    public ScheduleRegistry(DataSource dataSource) {
        if (dataSource == null) {
            throw new IllegalArgumentException("dataSource may not be null");
        }
        this.dataSource = dataSource;
    }

    /**
     * Upserts the definitions in one transaction.
     *
     * @return the names of schedules that were new
     * @throws IllegalArgumentException when two definitions share a name or a payload template is
     *     not JSON (the message names the schedule)
     */
    public List<String> register(Collection<ScheduleDefinition> definitions) {
        Set<String> names = new HashSet<>();
        for (ScheduleDefinition d : definitions) {
            if (!names.add(d.name())) {
                throw new IllegalArgumentException("Schedule '" + d.name() + "' is defined twice: schedule names"
                        + " must be unique (they are the first half of every fire key)");
            }
        }
        return inTransaction(c -> {
            List<String> inserted = new ArrayList<>();
            Instant now = store.databaseNow(c, Duration.ZERO);
            List<ScheduleDefinition> inLockOrder = definitions.stream()
                    .sorted(Comparator.comparing(ScheduleDefinition::name))
                    .toList();
            for (ScheduleDefinition d : inLockOrder) {
                ScheduleStore.Upsert done;
                try {
                    done = store.upsert(
                            c, d, d.fireCalculator().nextFireAfter(now).orElse(null));
                } catch (SQLException e) {
                    if ("22P02".equals(e.getSQLState())) {
                        throw new IllegalArgumentException(
                                "Schedule '" + d.name() + "': payloadTemplate is not valid JSON ("
                                        + e.getMessage() + "). Put placeholders such as ${fireAt} inside JSON"
                                        + " strings.",
                                e);
                    }
                    throw e;
                }
                if (done == ScheduleStore.Upsert.INSERTED) {
                    inserted.add(d.name());
                    log.info("Registered schedule {}", d);
                } else if (done == ScheduleStore.Upsert.UPDATED) {
                    log.info(
                            "Schedule '{}' updated to {}: the stored definition differed (when nodes register"
                                    + " different definitions, the last one to register wins)",
                            d.name(),
                            d);
                }
            }
            return List.copyOf(inserted);
        });
    }

    /** Registers one definition; see {@link #register(Collection)}. */
    public boolean register(ScheduleDefinition definition) {
        return !register(List.of(definition)).isEmpty();
    }

    /**
     * Pauses a schedule: it creates no jobs until resumed.
     *
     * @return false when it was already paused
     * @throws IllegalArgumentException when no schedule has that name
     */
    public boolean pause(String name) {
        return setPaused(name, true);
    }

    /**
     * Resumes a paused schedule. Fires that fell due while it was paused are missed fires: they
     * follow its {@link MissedFirePolicy}.
     *
     * @return false when it was not paused
     * @throws IllegalArgumentException when no schedule has that name
     */
    public boolean resume(String name) {
        return setPaused(name, false);
    }

    /**
     * Every stored schedule in name order, each with its latest {@code historyLimit} fires (newest
     * first; none when {@code historyLimit} is 0). Schedules stored but no longer declared are read
     * too.
     */
    public List<StoredSchedule> schedules(int historyLimit) {
        return schedules(null, historyLimit);
    }

    /** One stored schedule with its latest {@code historyLimit} fires; empty when none has that name. */
    public Optional<StoredSchedule> schedule(String name, int historyLimit) {
        return schedule(name, null, historyLimit);
    }

    /**
     * The schedules of one tenant: every read and pause it makes is limited to the tenant's rows, so
     * an operation for tenant A never sees or changes tenant B's schedules.
     *
     * @param tenant the tenant id (see {@link TenantId}); use {@link #forDefaultTenant()} for
     *     schedules without a tenant
     */
    public TenantSchedules forTenant(String tenant) {
        return new TenantSchedules(this, TenantId.validate(tenant, "tenant"));
    }

    /** The schedules of the default tenant (those declared without a tenant). */
    public TenantSchedules forDefaultTenant() {
        return new TenantSchedules(this, null);
    }

    /** The schedules of the tenant of {@code tenantKey} ({@code ''}: the default tenant), or of every tenant when null. */
    List<StoredSchedule> schedules(@Nullable String tenantKey, int historyLimit) {
        return read(c -> store.stored(c, null, tenantKey, historyLimit));
    }

    Optional<StoredSchedule> schedule(String name, @Nullable String tenantKey, int historyLimit) {
        Require.notNull(name, "name");
        return read(c -> store.stored(c, name, tenantKey, historyLimit)).stream()
                .findFirst();
    }

    /**
     * Pauses or resumes the schedule of that name, limited to the tenant of {@code tenantKey} ({@code
     * ''}: the default tenant) unless it is null.
     */
    boolean setPaused(String name, @Nullable String tenantKey, boolean paused) {
        Require.notNull(name, "name");
        return inTransaction(c -> {
            if (!store.exists(c, name, tenantKey)) {
                throw new IllegalArgumentException(
                        tenantKey == null
                                ? "No schedule named '" + name + "'"
                                : "Tenant " + TenantId.name(tenantKey.isEmpty() ? null : tenantKey)
                                        + " has no schedule named '" + name + "'");
            }
            return store.setPaused(c, name, tenantKey, paused);
        });
    }

    private boolean setPaused(String name, boolean paused) {
        return setPaused(name, null, paused);
    }

    /** Reads on a connection as the data source gives it, in no transaction of the registry's own. */
    private <T> T read(Transactions.Work<T> work) {
        try (Connection c = dataSource.getConnection()) {
            return work.run(c);
        } catch (SQLException e) {
            throw new IllegalStateException("Reading the Postbox schedules failed: " + e.getMessage(), e);
        }
    }

    private <T> T inTransaction(Transactions.Work<T> work) {
        try {
            return Transactions.call(dataSource, work);
        } catch (SQLException e) {
            throw new IllegalStateException("Schedule registry statement failed: " + e.getMessage(), e);
        }
    }
}
