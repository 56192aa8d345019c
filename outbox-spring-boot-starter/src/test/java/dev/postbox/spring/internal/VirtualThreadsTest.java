package dev.postbox.spring.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.ThreadFactory;
import org.junit.jupiter.api.Test;
import org.springframework.mock.env.MockEnvironment;

class VirtualThreadsTest {

    @Test
    void platformThreadsUnlessAskedFor() {
        assertThat(VirtualThreads.factoryIfEnabled(new MockEnvironment())).isNull();
    }

    @Test
    void virtualThreadsWhenAskedForOnJava21() throws Exception {
        ThreadFactory factory = VirtualThreads.factoryIfEnabled(
                new MockEnvironment().withProperty("spring.threads.virtual.enabled", "true"));
        if (Runtime.version().feature() < 21) {
            assertThat(factory)
                    .as("Java " + Runtime.version().feature() + " has no virtual threads")
                    .isNull();
            return;
        }
        assertThat(factory).isNotNull();
        Thread thread = factory.newThread(() -> {});
        assertThat(Thread.class.getMethod("isVirtual").invoke(thread)).isEqualTo(true);
        assertThat(thread.getName()).startsWith(VirtualThreads.THREAD_NAME_PREFIX);
    }
}
