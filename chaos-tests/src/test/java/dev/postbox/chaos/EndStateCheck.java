package dev.postbox.chaos;

import static dev.postbox.chaos.Checker.map;
import static dev.postbox.chaos.Checker.one;

import java.sql.SQLException;
import java.sql.Statement;

/** Where the jobs ended: dead letters of jobs that were not poison, and jobs still live after the drain. */
final class EndStateCheck {

    private EndStateCheck() {}

    static void check(Statement s, ChaosResult r) throws SQLException {
        r.put(
                "unexpectedDeadLetters",
                one(s, "SELECT count(*) FROM outbox_dead_letter WHERE kind <> '" + WorkerMain.POISON + "'"));
        r.put(
                "deadLettersByKindAndReason",
                map(
                        s,
                        "SELECT kind || ': ' || regexp_replace(left(coalesce(last_error, '-'), 70), '[0-9]+', 'N', 'g'),"
                                + " count(*) FROM outbox_dead_letter GROUP BY 1 ORDER BY 2 DESC LIMIT 12"));
        r.put("notTerminal", one(s, "SELECT count(*) FROM outbox_job"));
        r.put(
                "notTerminalByKindAndLastError",
                map(
                        s,
                        "SELECT kind || ': ' || regexp_replace(left(coalesce(last_error, '-'), 70), '[0-9]+', 'N', 'g'),"
                                + " count(*) FROM outbox_job GROUP BY 1 ORDER BY 2 DESC LIMIT 8"));
    }
}
