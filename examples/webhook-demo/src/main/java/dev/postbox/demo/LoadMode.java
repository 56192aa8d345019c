package dev.postbox.demo;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.IntStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.core.env.Environment;
import org.springframework.stereotype.Component;
import org.springframework.web.client.RestClient;

/**
 * {@code --demo.orders=N}: places N orders through {@code POST /orders}, waits until every job has
 * finished (done or dead) or {@code demo.timeout} passed, prints the {@link DemoSummary}, and makes
 * the process exit with 0 when it adds up, 1 otherwise.
 */
@Component
@ConditionalOnProperty("demo.orders")
class LoadMode implements ApplicationRunner {

    private static final Logger log = LoggerFactory.getLogger(LoadMode.class);
    private static final List<String> SKUS = List.of("book", "pen", "mug");

    private final DemoSummaryQuery summaryQuery;
    private final RestClient http;
    private final Environment environment;
    private final int orders;
    private final Duration timeout;
    private volatile DemoSummary summary;

    LoadMode(
            DemoSummaryQuery summaryQuery,
            RestClient.Builder http,
            Environment environment,
            @Value("${demo.orders}") int orders,
            @Value("${demo.timeout:60s}") Duration timeout) {
        this.summaryQuery = summaryQuery;
        this.http = http.build();
        this.environment = environment;
        this.orders = orders;
        this.timeout = timeout;
    }

    @Override
    public void run(ApplicationArguments args) throws Exception {
        String base = "http://localhost:" + environment.getRequiredProperty("local.server.port");
        log.info("Placing {} orders through {}/orders", orders, base);
        ExecutorService clients = Executors.newFixedThreadPool(4);
        try {
            List<Future<?>> placed = IntStream.range(0, orders)
                    .<Future<?>>mapToObj(i -> clients.submit(() -> http.post()
                            .uri(base + "/orders")
                            .body(new NewOrder(SKUS.get(i % SKUS.size()), 1 + i % 3))
                            .retrieve()
                            .toBodilessEntity()))
                    .toList();
            for (Future<?> f : placed) {
                f.get();
            }
        } finally {
            clients.shutdown();
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        DemoSummary current = summaryQuery.current();
        while (current.unfinished() > 0 && System.nanoTime() < deadline) {
            Thread.sleep(200);
            current = summaryQuery.current();
        }
        summary = current;
        System.out.println(current.report());
    }

    /** The summary once the run finished. */
    DemoSummary summary() {
        return summary;
    }

    /** 0 when the summary adds up, 1 otherwise. */
    int exitCode() {
        return summary != null && summary.ok() ? 0 : 1;
    }
}
