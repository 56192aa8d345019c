package dev.postbox.demo;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The Postbox webhook demo. {@code POST /orders} saves an order and, in the same transaction, writes
 * three jobs: an exactly-once stock reservation, a keyed webhook to the demo's own receiver and, for
 * every tenth order, an ERP sync that always fails and lands in the dead letters.
 *
 * <p>With {@code --demo.orders=N} it places N orders, waits until every job finished, prints a
 * summary and exits with 0 when the numbers add up (1 otherwise). Without {@code
 * spring.datasource.url} it runs on an embedded PostgreSQL.
 */
@SpringBootApplication
public class WebhookDemoApplication {

    public static void main(String[] args) {
        ConfigurableApplicationContext context = SpringApplication.run(WebhookDemoApplication.class, args);
        LoadMode loadMode = context.getBeanProvider(LoadMode.class).getIfAvailable();
        if (loadMode != null) {
            int exitCode = loadMode.exitCode();
            System.exit(SpringApplication.exit(context, () -> exitCode));
        }
    }
}
