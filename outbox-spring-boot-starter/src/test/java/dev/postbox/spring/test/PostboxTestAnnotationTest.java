package dev.postbox.spring.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.postbox.Postbox;
import dev.postbox.spring.Enqueue;
import dev.postbox.spring.OutboxHandler;
import dev.postbox.testing.TestDatabase;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.transaction.annotation.Transactional;

/**
 * {@code @PostboxTest} in a user's {@code @SpringBootTest}: worker off, helper injected. The schema
 * comes from Flyway with Postbox's migrations location, as the starter's README describes.
 */
@SpringBootTest(
        classes = PostboxTestAnnotationTest.App.class,
        properties = {
            "spring.flyway.locations=classpath:db/postbox",
            "postbox.schema.initialize=never",
            // Liquibase is on this module's test class path for PostboxSchemaTest, not for this application.
            "spring.liquibase.enabled=false"
        })
@PostboxTest
class PostboxTestAnnotationTest {

    public record Greeting(String name) {}

    static class Greeter {
        private final List<String> greeted = new CopyOnWriteArrayList<>();

        public List<String> greeted() {
            return greeted;
        }

        @Transactional
        @Enqueue(kind = "greet", payload = "new dev.postbox.spring.test.PostboxTestAnnotationTest$Greeting(#p0)")
        public void greetLater(String name) {}

        @Transactional
        @Enqueue(kind = "greet", payload = "#p0", delay = "1h")
        public void greetMuchLater(Greeting greeting) {}

        @OutboxHandler("greet")
        void greet(Greeting greeting) {
            greeted.add(greeting.name());
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class App {
        @Bean(destroyMethod = "")
        DataSource dataSource() {
            return TestDatabase.createEmpty();
        }

        @Bean
        Greeter greeter() {
            return new Greeter();
        }
    }

    @Autowired
    PostboxTestHelper postbox;

    @Autowired
    Greeter greeter;

    @Autowired
    Postbox engine;

    @Test
    void jobsRunOnlyWhenTheTestSaysSo() {
        assertThat(engine.isRunning()).as("the background worker is off").isFalse();
        postbox.reset();

        greeter.greetLater("Ada");
        greeter.greetMuchLater(new Greeting("Grace"));
        postbox.assertEnqueued("greet", Greeting.class, g -> g.name().equals("Ada"));
        assertThatThrownBy(() -> postbox.assertEnqueued("greet")).hasMessageContaining("found 2");

        assertThat(postbox.runDueJobs()).isEqualTo(1);
        assertThat(greeter.greeted()).containsExactly("Ada");

        assertThat(postbox.runJobsDueWithin(Duration.ofMinutes(59))).isZero();
        assertThat(postbox.runJobsDueWithin(Duration.ofMinutes(2))).isEqualTo(1);
        assertThat(greeter.greeted()).containsExactly("Ada", "Grace");
        postbox.assertNotEnqueued("greet");
    }
}
