package dev.postbox.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.postbox.HandlerRegistration;
import dev.postbox.JobRequest;
import dev.postbox.Outbox;
import dev.postbox.spring.internal.VirtualThreads;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.junit.jupiter.api.condition.JRE;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/** With {@code spring.threads.virtual.enabled=true} on Java 21+, the worker runs handlers on virtual threads. */
@EnabledForJreRange(min = JRE.JAVA_21)
class VirtualThreadHandlersTest {

    @Test
    void handlersRunOnVirtualThreads() {
        AtomicReference<Thread> handlerThread = new AtomicReference<>();
        TestDataSources.withSchema(new ApplicationContextRunner()
                        .withConfiguration(AutoConfigurations.of(
                                BootAutoConfigurations.DATA_SOURCE_TRANSACTION_MANAGER,
                                PostboxAutoConfiguration.class)))
                .withPropertyValues(
                        "spring.threads.virtual.enabled=true",
                        "postbox.worker.poll-interval=100ms",
                        "postbox.worker.shutdown-grace=2s")
                .withBean(
                        HandlerRegistration.class,
                        () -> HandlerRegistration.of("where", job -> handlerThread.set(Thread.currentThread())))
                .run(context -> {
                    new TransactionTemplate(context.getBean(PlatformTransactionManager.class))
                            .executeWithoutResult(
                                    s -> context.getBean(Outbox.class).enqueue(JobRequest.of("where", Map.of())));
                    await().atMost(Duration.ofSeconds(20)).until(() -> handlerThread.get() != null);
                    Thread thread = handlerThread.get();
                    assertThat(Thread.class.getMethod("isVirtual").invoke(thread))
                            .isEqualTo(true);
                    assertThat(thread.getName()).startsWith(VirtualThreads.THREAD_NAME_PREFIX);
                });
    }
}
