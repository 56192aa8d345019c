package dev.postbox.demo;

import dev.postbox.Job;
import dev.postbox.spring.PostboxSchedule;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;

/**
 * A cron schedule declared in one line: every fire becomes one {@value #KIND} job, exactly once
 * however many instances run, and this method handles it. A real daily report would fire once a
 * day ({@code cron = "0 7 * * *", zone = "Europe/Berlin"}); the demo fires every 30 seconds so that
 * you see it. Override it without recompiling: {@code --postbox.schedules.daily-report.cron=0 7 * * *}.
 * Its fires and their jobs are listed by {@code GET /actuator/postboxschedules} when the actuator is
 * exposed, and by SQL: {@code SELECT * FROM outbox_schedule_fire}.
 */
@Component
class DailyReport {

    static final String KIND = "daily-report";

    private static final Logger log = LoggerFactory.getLogger(DailyReport.class);

    private final JdbcTemplate jdbc;

    DailyReport(JdbcTemplate jdbc) {
        this.jdbc = jdbc;
    }

    @PostboxSchedule(
            name = "daily-report",
            cron = "0,30 * * * * *",
            kind = KIND,
            payload = "{\"firedAt\": \"${fireAt}\"}")
    void report(Map<String, Object> payload, Job job) {
        log.info(
                "Report for fire {} (job {}): {} orders, {} reserved, {} webhooks received, {} dead letters",
                payload.get("firedAt"),
                job.id(),
                count("SELECT count(*) FROM demo_order"),
                count("SELECT count(*) FROM demo_reservation"),
                count("SELECT count(*) FROM demo_receiver_inbox"),
                count("SELECT count(*) FROM outbox_dead_letter"));
    }

    private long count(String sql) {
        Long value = jdbc.queryForObject(sql, Long.class);
        return value == null ? 0 : value;
    }
}
