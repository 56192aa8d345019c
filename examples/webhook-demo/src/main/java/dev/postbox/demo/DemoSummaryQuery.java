package dev.postbox.demo;

import dev.postbox.PostboxAdmin;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;

/** Reads the {@link DemoSummary} from the demo's tables and Postbox's admin API. */
@Component
class DemoSummaryQuery {

    private static final long INITIAL_STOCK = 3_000_000;

    private final JdbcTemplate jdbc;
    private final PostboxAdmin admin;

    DemoSummaryQuery(JdbcTemplate jdbc, PostboxAdmin admin) {
        this.jdbc = jdbc;
        this.admin = admin;
    }

    DemoSummary current() {
        return new DemoSummary(
                count("SELECT count(*) FROM demo_order"),
                count("SELECT count(*) FROM demo_reservation"),
                count("SELECT coalesce(sum(quantity), 0) FROM demo_reservation")
                        - (INITIAL_STOCK - count("SELECT sum(available) FROM demo_stock")),
                count("SELECT count(*) FROM demo_receiver_inbox"),
                count("SELECT coalesce(sum(received - 1), 0) FROM demo_receiver_inbox"),
                count("SELECT count(*) FROM demo_receiver_inbox WHERE applied > 1"),
                count("SELECT count(*) FROM outbox_job_archive WHERE state = 'done' AND attempts > 1"),
                admin.deadLetterCount(),
                count("SELECT count(*) FROM demo_order WHERE id % 10 = 0"),
                // the daily-report schedule fires on its own clock; its jobs are not part of the load
                count("SELECT count(*) FROM outbox_job WHERE kind <> '" + DailyReport.KIND + "'"));
    }

    private long count(String sql) {
        Long value = jdbc.queryForObject(sql, Long.class);
        return value == null ? 0 : value;
    }
}
