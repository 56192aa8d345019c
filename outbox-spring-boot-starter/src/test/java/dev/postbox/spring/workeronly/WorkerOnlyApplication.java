package dev.postbox.spring.workeronly;

import dev.postbox.Job;
import dev.postbox.spring.OutboxHandler;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;

/**
 * An application that only runs jobs: no web server, and {@code main} returns right after the
 * context is up. It stays alive only because the Postbox worker holds a non-daemon thread. Started
 * as a child JVM by {@code WorkerOnlyApplicationTest}.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
public class WorkerOnlyApplication {

    /** Prints a line per job, so that the test sees the worker working. */
    public static class Handlers {
        @OutboxHandler("ping")
        public void ping(Job job) {
            System.out.println("HANDLED job " + job.id());
        }
    }

    @Bean
    Handlers handlers() {
        return new Handlers();
    }

    public static void main(String[] args) {
        SpringApplication app = new SpringApplication(WorkerOnlyApplication.class);
        app.setWebApplicationType(WebApplicationType.NONE);
        app.run(args);
        System.out.println("MAIN RETURNED");
    }
}
