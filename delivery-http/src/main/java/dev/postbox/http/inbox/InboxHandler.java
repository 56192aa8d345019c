package dev.postbox.http.inbox;

/**
 * The receiver's effect of one verified webhook. It runs inside the inbox transaction: its writes
 * through the same {@code DataSource} (Spring-managed: {@code JdbcTemplate}, JPA with the same
 * transaction manager) commit together with the {@code webhook-id} record, or not at all.
 */
@FunctionalInterface
public interface InboxHandler {

    void handle(InboxMessage message) throws Exception;
}
