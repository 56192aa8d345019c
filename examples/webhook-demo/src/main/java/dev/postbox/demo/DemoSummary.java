package dev.postbox.demo;

import java.util.ArrayList;
import java.util.List;

/**
 * What happened to the orders and their jobs.
 *
 * @param orders orders saved
 * @param reserved stock reservations (must equal orders: exactly once)
 * @param stockMismatch reserved quantity minus the quantity taken from stock (must be 0)
 * @param delivered webhooks the receiver applied (must equal orders)
 * @param redelivered deliveries the receiver saw again under a known key and ignored
 * @param duplicates effects the receiver applied twice (must be 0)
 * @param retried finished jobs that needed more than one attempt
 * @param dead dead letters
 * @param expectedDead orders whose ERP sync must fail (every tenth)
 * @param unfinished jobs still waiting or running, except those of the daily-report schedule
 */
public record DemoSummary(
        long orders,
        long reserved,
        long stockMismatch,
        long delivered,
        long redelivered,
        long duplicates,
        long retried,
        long dead,
        long expectedDead,
        long unfinished) {

    /** The broken promises, empty when everything adds up. */
    public List<String> problems() {
        List<String> problems = new ArrayList<>();
        if (unfinished != 0) {
            problems.add(unfinished + " job(s) still unfinished");
        }
        if (reserved != orders) {
            problems.add("reserved " + reserved + " times for " + orders + " orders");
        }
        if (stockMismatch != 0) {
            problems.add("stock is off by " + stockMismatch);
        }
        if (delivered != orders) {
            problems.add("delivered " + delivered + " webhooks for " + orders + " orders");
        }
        if (duplicates != 0) {
            problems.add(duplicates + " duplicate effect(s) at the receiver");
        }
        if (dead != expectedDead) {
            problems.add(dead + " dead letters, expected " + expectedDead);
        }
        return problems;
    }

    public boolean ok() {
        return problems().isEmpty();
    }

    /** The printed report. */
    public String report() {
        return String.join(
                System.lineSeparator(),
                "Postbox webhook demo summary",
                "  orders placed:                      " + orders,
                "  stock reserved (exactly once):      " + reserved,
                "  webhooks delivered:                 " + delivered,
                "  jobs retried before succeeding:     " + retried,
                "  redeliveries ignored by key:        " + redelivered,
                "  duplicates seen by the receiver:    " + duplicates,
                "  dead letters (ERP sync, expected " + expectedDead + "): " + dead,
                "  unfinished jobs:                    " + unfinished,
                ok() ? "  result: OK" : "  result: FAILED " + problems());
    }
}
