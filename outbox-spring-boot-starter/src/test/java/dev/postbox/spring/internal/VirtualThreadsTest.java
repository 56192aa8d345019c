package dev.postbox.spring.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.ThreadFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.condition.JRE;
import org.springframework.mock.env.MockEnvironment;

/**
 * Virtual threads when asked for on Java 21+, platform threads otherwise. The build runs this
 * module's tests on JDK 17 and again on JDK 21+ (the {@code tests-on-jdk21} surefire execution), so
 * each JDK's branch is tested.
 */
class VirtualThreadsTest {

    @Test
    void platformThreadsUnlessAskedFor() {
        assertThat(VirtualThreads.factoryIfEnabled(new MockEnvironment())).isNull();
    }

    @Test
    @EnabledForJreRange(min = JRE.JAVA_21)
    void virtualThreadsWhenAskedForOnJava21() throws Exception {
        ThreadFactory factory = VirtualThreads.factoryIfEnabled(
                new MockEnvironment().withProperty("spring.threads.virtual.enabled", "true"));

        assertThat(factory).isNotNull();
        Thread thread = factory.newThread(() -> {});
        assertThat(Thread.class.getMethod("isVirtual").invoke(thread)).isEqualTo(true);
        assertThat(thread.getName()).startsWith(VirtualThreads.THREAD_NAME_PREFIX);
    }

    @Test
    @EnabledForJreRange(max = JRE.JAVA_20)
    void platformThreadsBeforeJava21EvenWhenAskedFor() {
        assertThat(VirtualThreads.factoryIfEnabled(
                        new MockEnvironment().withProperty("spring.threads.virtual.enabled", "true")))
                .as("Java " + Runtime.version().feature() + " has no virtual threads")
                .isNull();
    }

    /** The JDK 21+ execution must really run on 21+, or the virtual-thread test above never runs. */
    @Test
    @EnabledIfSystemProperty(named = "postbox.test.java21", matches = "true")
    void theJava21RunRunsOnJava21() {
        assertThat(Runtime.version().feature()).isGreaterThanOrEqualTo(21);
    }
}
